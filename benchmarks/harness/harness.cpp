#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/centroidal.hpp>
#include <pinocchio/algorithm/compute-all-terms.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/model.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <vector>
@UNIFORM@
int main(int argc, char **argv) {
    using namespace pinocchio;
@MODEL@
    R << @TOOL_R@; p << @TOOL_P@;
    const FrameIndex tool = model.addFrame(Frame("tool", parent, SE3(R, p), OP_FRAME));
    Data data(model);
    Data::Matrix6x J(6, model.nv);
    J.setZero();
    const int n = model.nv, states = @STATES@;
    const long reps = std::atol(argv[2]);
    std::vector<Eigen::VectorXd> q(states, Eigen::VectorXd(model.nq)),
        v(states, Eigen::VectorXd(n)), a = v;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd ddq = zero;
    unsigned long long seed = 42;
    for (int k = 0; k < states; k++) {
        for (int r = 0; r < n; r++) {
            q[k][r] = uniform(&seed); v[k][r] = uniform(&seed); a[k][r] = uniform(&seed);
            if (argc > 3) q[k][r] = 2.5 * std::sin(0.01 * k + r); }
        for (int r = n; r < model.nq; r++)
            q[k][r] = argc > 3 ? 2.5 * std::sin(0.01 * k + r) : uniform(&seed);
        normalize(model, q[k]); }   // a free-flyer's and the spherical joints' quaternions
@WORKS@
    const std::vector<std::function<double()>> works = {@TABLE@};
@TIMED@
}
