#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    const long reps = atol(argv[2]);
    double @DECLARE@;
    long r; struct timespec t0, t1;
    (void)argc;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (r = 0; r < reps; r++) { @CHAINS@ }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    printf("%.5f %g\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec))
           / ((double)reps * @N@ * 1024), @SUM@);
    return 0;
}
