static double work@I@(long reps) {
    static double out[3 * N * N + 16 + 6 * N + 6], w[@W@]; static long long int iw[@IW@];
    const double *arg[@ARGS@]; double *res[2]; double sink = 0.0; long r, k;
    for (r = 0; r < reps; r++) for (k = 0; k < STATES; k++) {
        arg[0] = q[k]; arg[@ARGS@ - 1] = qd[k]; res[0] = out; res[1] = out + 16;
        @FUNCTION@(arg, res, iw, w, 0); sink += out[0] + out[16]; }
    return sink;
}
