    timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    const double sink = works[std::atoi(argv[1])]();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    std::printf("%.3f %g\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec))
                / (double)(reps * states), sink);
    return 0;
