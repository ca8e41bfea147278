// Pinocchio's own algorithms evaluated on casadi::SX, each written as C by CasADi's code
// generator (its CSE on): the code-generation route Pinocchio's users have. Built once for
// every robot (the algorithms' instantiation on SX takes g++ minutes); each robot's model
// (casadi_pinocchio_model.cpp) calls it. It writes pin_casadi.c and .h into ``folder`` and
// prints, a line a function, its index, the sizes of its work arrays (w, iw) and its
// operations (operations()).
#include <pinocchio/autodiff/casadi.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/model.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <cstdio>
#include <string>

// An Eigen matrix's entries as one SX column, row by row (symdyn's row-major layout).
template <typename Matrix> static ::casadi::SX entries(const Matrix &m) {
    ::casadi::SX out(m.rows() * m.cols(), 1);
    for (Eigen::Index i = 0; i < m.rows(); i++)
        for (Eigen::Index j = 0; j < m.cols(); j++) out(i * m.cols() + j) = m(i, j);
    return out;
}

// A symmetric matrix of which an algorithm fills the upper triangle (crba's M, Minv).
template <typename Matrix> static void mirror(Matrix &m) {
    m.template triangularView<Eigen::StrictlyLower>() =
        m.transpose().template triangularView<Eigen::StrictlyLower>();
}

// A function's SX instructions of one kind, as symdyn counts its own operations: with
// ``products``, products, quotients, inverses and squares; else sums and differences (twice x
// as one).
static long long operations(const ::casadi::Function &f, bool products) {
    long long count = 0;
    for (casadi_int k = 0; k < f.n_instructions(); k++) {
        casadi_int op = f.instruction_id(k);
        count += products ? (op == ::casadi::OP_MUL || op == ::casadi::OP_DIV ||
                             op == ::casadi::OP_INV || op == ::casadi::OP_SQ)
                          : (op == ::casadi::OP_ADD || op == ::casadi::OP_SUB ||
                             op == ::casadi::OP_TWICE);
    }
    return count;
}

void symdyn_casadi_generate(const pinocchio::Model &model, const char *folder) {
    using namespace pinocchio;
    typedef ::casadi::SX AD;
    typedef ModelTpl<AD> ADModel;
    ADModel ad = model.cast<AD>();
    ADModel::Data d(ad);
    const int n = model.nv;
    ::casadi::SX cq = ::casadi::SX::sym("q", model.nq), cv = ::casadi::SX::sym("v", n),
               ca = ::casadi::SX::sym("a", n);
    ADModel::ConfigVectorType q(model.nq);
    ADModel::TangentVectorType v(n), a(n);
    for (int i = 0; i < model.nq; i++) q[i] = cq(i);
    for (int i = 0; i < n; i++) { v[i] = cv(i); a[i] = ca(i); }
    ::casadi::CodeGenerator generator("pin_casadi.c", ::casadi::Dict{{"with_header", true}});
@FUNCTIONS@
    generator.generate(std::string(folder) + "/");
}
