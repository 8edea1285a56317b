// The dependency flags CMake and make use (-MD -MT -MF) write the usual file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -MD -MT deps-target.o -MF %t/out.d -I %S/Inputs/include -c %s -o %t/out.o
// RUN: FileCheck %s < %t/out.d
// CHECK: deps-target.o:
// CHECK-SAME: dependency-files.c
// CHECK: driver-test-config.h
//
// -M alone preprocesses and prints the rule.
// RUN: %synergy-cc -M -I %S/Inputs/include %s | FileCheck %s --check-prefix=RULE
// RULE: dependency-files.o: {{.*}}dependency-files.c
#include <driver-test-config.h>
#include <stdio.h>
int main(void) { return CONFIG_FROM_INCLUDE_DIR - 1; }
