// Hostile and wrong arguments to the intercommunicator calls raise the MPI
// error through the communicator's error handler, leave the output handle
// untouched, and move no data: an invalid local or remote leader, a bad tag,
// overlapping groups, a forged leader message on the peer communicator, an
// intracommunicator where an intercommunicator is needed, a root or a
// destination outside the remote group, MPI_IN_PLACE, a group with remote
// members for MPI_Comm_create, and collectives not
// defined on intercommunicators (MPI_Scan, MPI_Iscan), in blocking and
// nonblocking forms.
// With MPI_ERRORS_ARE_FATAL the job ends with one line naming the reason.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 %s -o %t/errors.wasm
// RUN: %synergy-run -np 2 %t/errors.wasm return | FileCheck %s --check-prefix=RETURN
// RUN: %synergy-run -np 2 %t/errors.wasm forged | FileCheck %s --check-prefix=FORGED
// RUN: not %synergy-run -np 2 %t/errors.wasm overlap 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: not %synergy-run -np 3 %t/errors.wasm fatal 2>&1 | FileCheck %s --check-prefix=FATAL
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int world_rank;

static void expect(const char* what, int error) {
  char text[MPI_MAX_ERROR_STRING];
  int length, error_class;
  MPI_Error_class(error, &error_class);
  MPI_Error_string(error_class, text, &length);
  printf("rank %d: %s: %s\n", world_rank, what, error == MPI_SUCCESS ? "no error" : text);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  const char* mode = argc > 1 ? argv[1] : "return";
  int color = world_rank % 2;
  MPI_Comm local, inter = MPI_COMM_NULL;

  if (!strcmp(mode, "overlap")) {
    // Both groups are the whole world: each leader sees the other in its
    // own group.
    MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 1, 4, &inter);
    printf("rank %d: not reached\n", world_rank);
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "fatal")) {
    // Rank 2 names local leader 5, out of range: fatal. The odd group may
    // finish its side first; the even group's ranks never do.
    MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &local);
    MPI_Intercomm_create(local, color == 0 && world_rank == 2 ? 5 : 0, MPI_COMM_WORLD, 1 - color,
                         4, &inter);
    printf("rank %d: not reached\n", world_rank);
    MPI_Finalize();
    return 0;
  }

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &local);

  if (!strcmp(mode, "forged")) {
    // Rank 1 sends rank 0 a message with the create's tag that is no group
    // (a member count of 1000 with one rank), then takes rank 0's message
    // and never calls MPI_Intercomm_create.
    if (world_rank == 1) {
      int forged[3] = {0, 1000, 0};
      MPI_Send(forged, 3, MPI_INT, 0, 21, MPI_COMM_WORLD);
      int leader_message[8];
      MPI_Status status;
      MPI_Recv(leader_message, 8, MPI_INT, 0, 21, MPI_COMM_WORLD, &status);
      int count;
      MPI_Get_count(&status, MPI_INT, &count);
      printf("rank 1: took the leader's message of %d ints\n", count);
    } else {
      expect("forged group", MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1, 21, &inter));
      printf("rank 0: handle untouched %d\n", inter == MPI_COMM_NULL);
    }
    MPI_Finalize();
    return 0;
  }

  // Arguments checked by every member before anything is sent.
  expect("local leader 9", MPI_Intercomm_create(local, 9, MPI_COMM_WORLD, 1 - color, 1, &inter));
  expect("null local communicator", MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 1, &inter));
  // Checked by the leaders, each of which returns the error to its group.
  expect("remote leader 7", MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 7, 1, &inter));
  expect("tag -3", MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, -3, &inter));
  expect("remote leader in own group",
         MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color, 1, &inter));
  printf("rank %d: handle untouched %d\n", world_rank, inter == MPI_COMM_NULL);
  int size;
  expect("remote size of an intracommunicator", MPI_Comm_remote_size(MPI_COMM_WORLD, &size));
  expect("merge of an intracommunicator", MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &inter));

  expect("valid create", MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 1, &inter));
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int value = 5, out = -1;
  expect("send to remote rank 1 of 1", MPI_Send(&value, 1, MPI_INT, 1, 0, inter));
  expect("bcast root 3", MPI_Bcast(&value, 1, MPI_INT, 3, inter));
  expect("allreduce in place", MPI_Allreduce(MPI_IN_PLACE, &out, 1, MPI_INT, MPI_SUM, inter));
  expect("scan", MPI_Scan(&value, &out, 1, MPI_INT, MPI_SUM, inter));
  MPI_Request request = MPI_REQUEST_NULL;
  expect("iscan", MPI_Iscan(&value, &out, 1, MPI_INT, MPI_SUM, inter, &request));
  expect("ibcast root 3", MPI_Ibcast(&value, 1, MPI_INT, 3, inter, &request));
  expect("iallreduce in place",
         MPI_Iallreduce(MPI_IN_PLACE, &out, 1, MPI_INT, MPI_SUM, inter, &request));
  expect("ialltoall in place",
         MPI_Ialltoall(MPI_IN_PLACE, 1, MPI_INT, &out, 1, MPI_INT, inter, &request));
  printf("rank %d: out untouched %d, request untouched %d\n", world_rank, out == -1,
         request == MPI_REQUEST_NULL);
  // MPI_Comm_create of an intercommunicator takes members of the local
  // group only; every member finds that before sending anything.
  MPI_Group world_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm created = MPI_COMM_NULL;
  expect("create with remote members", MPI_Comm_create(inter, world_group, &created));
  printf("rank %d: created untouched %d\n", world_rank, created == MPI_COMM_NULL);
  MPI_Group_free(&world_group);
  expect("barrier still works", MPI_Barrier(inter));
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}
// RETURN-DAG: rank 0: local leader 9: MPI_ERR_RANK: invalid rank
// RETURN-DAG: rank 1: local leader 9: MPI_ERR_RANK: invalid rank
// RETURN-DAG: rank 0: null local communicator: MPI_ERR_COMM: invalid communicator
// RETURN-DAG: rank 0: remote leader 7: MPI_ERR_RANK: invalid rank
// RETURN-DAG: rank 1: remote leader 7: MPI_ERR_RANK: invalid rank
// RETURN-DAG: rank 0: tag -3: MPI_ERR_TAG: invalid tag
// RETURN-DAG: rank 1: tag -3: MPI_ERR_TAG: invalid tag
// RETURN-DAG: rank 0: remote leader in own group: MPI_ERR_COMM: invalid communicator
// RETURN-DAG: rank 1: remote leader in own group: MPI_ERR_COMM: invalid communicator
// RETURN-DAG: rank 0: handle untouched 1
// RETURN-DAG: rank 1: handle untouched 1
// RETURN-DAG: rank 0: remote size of an intracommunicator: MPI_ERR_COMM: invalid communicator
// RETURN-DAG: rank 0: merge of an intracommunicator: MPI_ERR_COMM: invalid communicator
// RETURN-DAG: rank 0: valid create: no error
// RETURN-DAG: rank 1: valid create: no error
// RETURN-DAG: rank 0: send to remote rank 1 of 1: MPI_ERR_RANK: invalid rank
// RETURN-DAG: rank 0: bcast root 3: MPI_ERR_ROOT: invalid root
// RETURN-DAG: rank 0: allreduce in place: MPI_ERR_ARG: invalid argument of some other kind
// RETURN-DAG: rank 0: scan: MPI_ERR_COMM: invalid communicator
// RETURN-DAG: rank 0: iscan: MPI_ERR_COMM: invalid communicator
// RETURN-DAG: rank 0: ibcast root 3: MPI_ERR_ROOT: invalid root
// RETURN-DAG: rank 0: iallreduce in place: MPI_ERR_ARG: invalid argument of some other kind
// RETURN-DAG: rank 0: ialltoall in place: MPI_ERR_ARG: invalid argument of some other kind
// RETURN-DAG: rank 0: out untouched 1, request untouched 1
// RETURN-DAG: rank 1: out untouched 1, request untouched 1
// RETURN-DAG: rank 0: create with remote members: MPI_ERR_GROUP: invalid group
// RETURN-DAG: rank 1: create with remote members: MPI_ERR_GROUP: invalid group
// RETURN-DAG: rank 0: created untouched 1
// RETURN-DAG: rank 1: created untouched 1
// RETURN-DAG: rank 0: barrier still works: no error
// RETURN-DAG: rank 1: barrier still works: no error
// FORGED-DAG: rank 0: forged group: MPI_ERR_COMM: invalid communicator
// FORGED-DAG: rank 0: handle untouched 1
// FORGED-DAG: rank 1: took the leader's message of 3 ints
// OVERLAP: synergy-run: rank {{[01]}}: MPI_Intercomm_create: {{.*}}the remote leader (world rank 1) is in the local group: the groups must be disjoint (MPI_ERR_COMM)
// OVERLAP-NOT: not reached
// FATAL: synergy-run: rank 2: MPI_Intercomm_create: invalid local leader 5 (local communicator size 2) (MPI_ERR_RANK)
// FATAL-NOT: rank {{[02]}}: not reached
