// Computed-torque control of a simulated UR5: the controller asks the generated inverse
// dynamics for the torque that makes the tracking error decay as a critically damped
// second-order system; the plant is the generated forward dynamics, integrated by RK4 at 1 kHz.
#include <array>
#include <cmath>
#include <cstdio>

#include "ur5.h"    // extern "C" inside: the C functions link into C++ as they are

constexpr int n = UR5_DOF;
using Vector = std::array<double, n>;

// The desired motion: each joint swings about 0.3 rad, at its own frequency.
static void desired(double t, Vector &q, Vector &qd, Vector &qdd)
{
    for (int i = 0; i < n; i++) {
        const double w = 1.0 + 0.3 * i, a = 0.3;
        q[i] = a * std::sin(w * t);
        qd[i] = a * w * std::cos(w * t);
        qdd[i] = -a * w * w * std::sin(w * t);
    }
}

// tau = ID(q, qd, qdd_d + Kp e + Kd de): M(q) times the corrected acceleration, plus C qd + g
// and friction, in one call.
static Vector computed_torque(double t, const Vector &q, const Vector &qd)
{
    const double kp = 100.0, kd = 20.0;       // poles at -10 rad/s, twice
    Vector q_d, qd_d, qdd_d, a, tau;
    desired(t, q_d, qd_d, qdd_d);
    for (int i = 0; i < n; i++)
        a[i] = qdd_d[i] + kp * (q_d[i] - q[i]) + kd * (qd_d[i] - qd[i]);
    ur5_inverse_dynamics(q.data(), qd.data(), a.data(), tau.data());
    return tau;
}

int main()
{
    const double h = 1e-3;
    Vector q{}, qd{}, tau{};
    q[1] = 0.05;                              // start off the path
    double worst = 0.0;
    for (int step = 0; step < 3000; step++) {
        const double t = step * h;
        tau = computed_torque(t, q, qd);      // held over the step, as a controller does
        // RK4 on (q, qd), qdd from the generated forward dynamics
        Vector k1q = qd, k1v, q2, v2, k2q, k2v, q3, v3, k3q, k3v, q4, v4, k4q, k4v;
        ur5_forward_dynamics(q.data(), qd.data(), tau.data(), k1v.data());
        for (int i = 0; i < n; i++) { q2[i] = q[i] + h / 2 * k1q[i]; v2[i] = qd[i] + h / 2 * k1v[i]; }
        k2q = v2;
        ur5_forward_dynamics(q2.data(), v2.data(), tau.data(), k2v.data());
        for (int i = 0; i < n; i++) { q3[i] = q[i] + h / 2 * k2q[i]; v3[i] = qd[i] + h / 2 * k2v[i]; }
        k3q = v3;
        ur5_forward_dynamics(q3.data(), v3.data(), tau.data(), k3v.data());
        for (int i = 0; i < n; i++) { q4[i] = q[i] + h * k3q[i]; v4[i] = qd[i] + h * k3v[i]; }
        k4q = v4;
        ur5_forward_dynamics(q4.data(), v4.data(), tau.data(), k4v.data());
        for (int i = 0; i < n; i++) {
            q[i] += h / 6 * (k1q[i] + 2 * k2q[i] + 2 * k3q[i] + k4q[i]);
            qd[i] += h / 6 * (k1v[i] + 2 * k2v[i] + 2 * k3v[i] + k4v[i]);
        }
        if (t + h >= 2.0) {                   // after the start-up transient
            Vector q_d, qd_d, qdd_d;
            desired(t + h, q_d, qd_d, qdd_d);
            for (int i = 0; i < n; i++)
                worst = std::fmax(worst, std::fabs(q_d[i] - q[i]));
        }
    }
    std::printf("largest tracking error over the last second: %.2e rad\n", worst);
    return worst < 1e-3 ? 0 : 1;
}
