// Static archives made by llvm-ar-19 link like native ones: by path or through
// -L/-l, and only the members the program needs are pulled in.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -c -DMEMBER_USED %s -o %t/used.o
// RUN: %synergy-cc -c -DMEMBER_UNUSED %s -o %t/unused.o
// RUN: %synergy-cc -c %s -o %t/main.o
// RUN: llvm-ar-19 rcs %t/libparts.a %t/used.o %t/unused.o
// RUN: %synergy-cc %t/main.o %t/libparts.a -o %t/by-path.wasm
// RUN: %wasm-dis %t/by-path.wasm | FileCheck %s
// RUN: %synergy-cc %t/main.o -L%t -lparts -o %t/by-name.wasm
// RUN: %wasm-dis %t/by-name.wasm | FileCheck %s
// CHECK: (func $archive_member_used
// CHECK-NOT: $archive_member_unused
#if defined(MEMBER_USED)
int archive_member_used(int x) { return x * 7; }
#elif defined(MEMBER_UNUSED)
int archive_member_unused(int x) { return x * 11; }
#else
int archive_member_used(int x);
int main(int argc, char** argv) { return archive_member_used(argc); }
#endif
