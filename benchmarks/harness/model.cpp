    Model model;
    model.gravity.linear() << @GRAVITY@;
    JointIndex parent = 0;
    Eigen::Matrix3d R; Eigen::Vector3d p, c; Eigen::Matrix3d I;
@JOINTS@
    model.armature << @ARMATURE@;
