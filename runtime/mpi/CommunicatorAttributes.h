//===- CommunicatorAttributes.h - keyvals and attributes on MPI objects ----===//
//
// What MPI_Comm_dup and MPI_Comm_free (Communicators.cpp) must do about the
// attributes a program hung on a communicator: run the copy and delete
// callbacks of their keyvals (CommunicatorAttributes.cpp). The generic
// steps below serve every kind of object that carries attributes (the
// datatypes' in DatatypeAttributes.cpp): `object` is the handle the
// callbacks receive, `errorComm` the communicator whose error handler
// raises the errors.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mpi/RankState.h"
#include "util/FunctionRef.h"

namespace synergy::mpi {

// Copies the attributes of communicator handle `from` to the new handle
// `to` through their keyvals' copy callbacks; returns 0 or the error a
// callback returned (raised on `from`), after deleting the copies made
// before it.
int copyCommAttributes(HostCall& call, int from, int to);

// Deletes every attribute of communicator handle `comm` through its
// keyval's delete callback, newest set first; returns 0 or the first error a callback
// returned (raised on `comm`).
int deleteCommAttributes(HostCall& call, int comm);

// MPI_*_create_keyval and MPI_*_free_keyval.
int createKeyval(HostCall& call, uint32_t copyFunction, uint32_t deleteFunction,
                 uint32_t keyvalOut, uint32_t extraState);
int freeKeyval(HostCall& call, uint32_t keyvalAddr);

// Fills `copies` with what the copy callbacks of `attributes` hand back
// for a duplicate of `object`.
int copyAttributes(HostCall& call, int errorComm, int object, const AttributeMap& attributes,
                   AttributeMap& copies);
// Runs the delete callback of every one of `attributes` of `object`,
// newest set first.
int deleteAttributes(HostCall& call, int errorComm, int object, const AttributeMap& attributes);

// MPI_*_set_attr: `attributesOf` finds the object's attributes, and again
// after a delete callback ran (null when the callback freed the object).
int setAttribute(HostCall& call, int errorComm, int object,
                 util::FunctionRef<AttributeMap*()> attributesOf, int keyval, uint32_t value);
// MPI_*_get_attr for keyvals the program made.
int getAttribute(HostCall& call, int errorComm, const AttributeMap& attributes, int keyval,
                 uint32_t valueOut, uint32_t flagOut);
// MPI_*_delete_attr: the attribute stays when its delete callback fails;
// `attributesOf` as for setAttribute.
int deleteAttribute(HostCall& call, int errorComm, int object,
                    util::FunctionRef<AttributeMap*()> attributesOf, int keyval);

}  // namespace synergy::mpi
