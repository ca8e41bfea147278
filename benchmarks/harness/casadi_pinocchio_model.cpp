// One robot's model (section 1's) handed to the CasADi generator of casadi_pinocchio.cpp:
// `generator <folder>`.
#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/model.hpp>

void symdyn_casadi_generate(const pinocchio::Model &model, const char *folder);

int main(int argc, char **argv) {
    using namespace pinocchio;
    (void)argc;
@MODEL@
    symdyn_casadi_generate(model, argv[1]);
    return 0;
}
