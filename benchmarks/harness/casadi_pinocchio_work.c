static double work@I@(long reps) {
    static double out[3 * N * N], w[@W@]; static long long int iw[@IW@];
    const double *arg[3]; double *res[3]; double sink = 0.0; long r, k;
    res[0] = out; res[1] = out + N * N; res[2] = out + 2 * N * N;
    for (r = 0; r < reps; r++) for (k = 0; k < STATES; k++) {
        arg[0] = q[k]; arg[1] = qd[k]; arg[2] = qdd[k];
        pin@I@(arg, res, iw, w, 0); sink += out[N - 1]; }
    return sink;
}
