#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include @INCLUDE@
#define N @N@
#define NQ @NQ@
#define STATES @STATES@
#ifndef OUT_EXTRA
#define OUT_EXTRA 0     /* more outputs than section 1's (section 10's derivatives) */
#endif
static double q[STATES][NQ], qd[STATES][N], qdd[STATES][N];
@UNIFORM@
@WORKS@
int main(int argc, char **argv) {
    static double (*const works[])(long) = {@TABLE@};
    const long reps = atol(argv[2]);
    unsigned long long seed = 42; long k, r; double sink; struct timespec t0, t1;
    for (k = 0; k < STATES; k++) {
        for (r = 0; r < N; r++) {
            q[k][r] = uniform(&seed); qd[k][r] = uniform(&seed); qdd[k][r] = uniform(&seed);
            if (argc > 3) q[k][r] = 2.5 * sin(0.01 * k + r); }
        for (r = N; r < NQ; r++) q[k][r] = argc > 3 ? 2.5 * sin(0.01 * k + r) : uniform(&seed);
        @NORMALIZE@ }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    sink = works[atoi(argv[1])](reps);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    printf("%.3f %g\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec))
           / (double)(reps * STATES), sink);
    return 0;
}
