static double work@I@(long reps) {
    static double out[3 * N * N + 16 + 6 * N + 6 + OUT_EXTRA]; double sink = 0.0; long r, k;
    for (r = 0; r < reps; r++) for (k = 0; k < STATES; k++) { @WORK@ }
    return sink;
}
