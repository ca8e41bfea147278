#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/constrained-dynamics.hpp>
#include <pinocchio/algorithm/constrained-dynamics-derivatives.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/impulse-dynamics.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/model.hpp>
#include <pinocchio/algorithm/proximal.hpp>
#include <pinocchio/algorithm/rnea.hpp>
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
    // each constraint: its two ends as frames (a world end on joint 0) and its model
    PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(RigidConstraintModel) contacts;
    std::vector<FrameIndex> ends_a, ends_b;
    SE3 placement_a, placement_b;
@CONTACTS@
    Data data(model);
    PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(RigidConstraintData) datas;
    for (const auto &contact : contacts) datas.push_back(RigidConstraintData(contact));
    initConstraintDynamics(model, data, contacts, datas);
    ProximalSettings settings(1e-12, @MU@, 1);
    const int n = model.nv, states = @STATES@, rows = @ROWS@;
    const std::vector<int> actuated = {@ACTUATED@}, passive = {@PASSIVE@};
    const long reps = std::atol(argv[2]);
    std::vector<Eigen::VectorXd> q(states, Eigen::VectorXd(model.nq)),
        v(states, Eigen::VectorXd(n)), a = v;
    unsigned long long seed = 42;
    for (int k = 0; k < states; k++) {
        for (int r = 0; r < n; r++) {
            q[k][r] = uniform(&seed); v[k][r] = uniform(&seed); a[k][r] = uniform(&seed); }
        for (int r = n; r < model.nq; r++) q[k][r] = uniform(&seed);
        normalize(model, q[k]); }   // a free-flyer's and the spherical joints' quaternions
    // A closed-loop mechanism's inverse dynamics as a Pinocchio user writes it: the tree's
    // rnea, G from the ends' frame Jacobians (the rows symdyn keeps), G_p^T lambda = tau_p by
    // LU, tau_a = tau_tree,a - G_a^T lambda.
    Data::Matrix6x Ja(6, n), Jb(6, n);
    Eigen::MatrixXd G(rows, n), Gp(rows, passive.size()), Ga(rows, actuated.size());
    Eigen::VectorXd tau_p(passive.size()), tau_a(actuated.size());
    const std::vector<std::vector<int>> kept = {@KEPT@};
    auto kkt = [&](int k) {
        rnea(model, data, q[k], v[k], a[k]);
        computeJointJacobians(model, data, q[k]);
        updateFramePlacements(model, data);
        int row = 0;
        for (std::size_t e = 0; e < ends_a.size(); e++) {
            Ja.setZero(); Jb.setZero();
            getFrameJacobian(model, data, ends_a[e], LOCAL_WORLD_ALIGNED, Ja);
            getFrameJacobian(model, data, ends_b[e], LOCAL_WORLD_ALIGNED, Jb);
            for (int r : kept[e]) G.row(row++) = Ja.row(r) - Jb.row(r); }
        for (std::size_t j = 0; j < passive.size(); j++) {
            Gp.col(j) = G.col(passive[j]); tau_p[j] = data.tau[passive[j]]; }
        for (std::size_t j = 0; j < actuated.size(); j++) {
            Ga.col(j) = G.col(actuated[j]); tau_a[j] = data.tau[actuated[j]]; }
        const Eigen::VectorXd lambda = Gp.transpose().partialPivLu().solve(tau_p);
        tau_a -= Ga.transpose() * lambda;
        return tau_a[0] + lambda[0]; };
    auto work0 = [&]() {
        double sink = 0.0;
        for (long r = 0; r < reps; r++) for (int k = 0; k < states; k++) {
            constraintDynamics(model, data, q[k], v[k], a[k], contacts, datas, settings);
            sink += data.ddq[n - 1] + data.lambda_c[0]; }
        return sink; };
    auto work1 = [&]() {
        double sink = 0.0;
        for (long r = 0; r < reps; r++) for (int k = 0; k < states; k++) {
            impulseDynamics(model, data, q[k], v[k], contacts, datas, 0.0, settings);
            sink += data.dq_after[n - 1] + data.impulse_c[0]; }
        return sink; };
    auto work2 = [&]() {
        double sink = 0.0;
        for (long r = 0; r < reps; r++) for (int k = 0; k < states; k++) {
            constraintDynamics(model, data, q[k], v[k], a[k], contacts, datas, settings);
            computeConstraintDynamicsDerivatives(model, data, contacts, datas, settings);
            sink += data.ddq_dq(n - 1, n - 1) + data.dlambda_dq(0, n - 1); }
        return sink; };
    auto work3 = [&]() {
        double sink = 0.0;
        for (long r = 0; r < reps; r++) for (int k = 0; k < states; k++) sink += kkt(k);
        return sink; };
    const std::vector<std::function<double()>> works = {work0, work1, work2, work3};
@TIMED@
}
