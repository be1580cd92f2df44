// Outside pipeline/streams/, a front end's file that reaches for the manager's insides: it
// must not compile (tests/room_walls/CMakeLists.txt).
#include "pipeline/streams/manager_impl.hpp"

int room_wall_private_include() { return sizeof(fp::ManagedRun) > 0 ? 0 : 1; }
