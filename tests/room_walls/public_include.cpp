// Outside pipeline/streams/, a front end's file that includes the room's public header: it
// compiles (tests/room_walls/CMakeLists.txt), so the other test's failure is the wall's.
#include "pipeline/streams/manager.hpp"

int room_wall_public_include() { return sizeof(fp::StreamManager) > 0 ? 0 : 1; }
