    auto work@I@ = [&]() {
        double sink = 0.0;
        for (long r = 0; r < reps; r++) for (int k = 0; k < states; k++) { @WORK@ }
        return sink; };
