// framepipe_test_pch needs a source of its own to compile its precompiled header with
// (tests/CMakeLists.txt); the header is the point, this file holds nothing.
