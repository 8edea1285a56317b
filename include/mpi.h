/*===- mpi.h - the MPI-3.1 C interface for Synergy granules ----------------===
 *
 * Programs written for MPI include this header unchanged when built with
 * synergy-cc. Every MPI_* function is an import from module "env" that the
 * Synergy runtime (runtime/mpi/) implements as a control point, working
 * directly on the calling granule's linear memory.
 *
 * ABI, shared with runtime/mpi/MpiAbi.h (keep the two in step):
 *  - every handle (communicator, datatype, op, request, group, window, info,
 *    errhandler, message) is a plain int; 0 is the null handle and the
 *    predefined objects have the small fixed values below;
 *  - MPI_Aint is `long` (address-sized: 32 bits on wasm32), MPI_Offset and
 *    MPI_Count are 64 bits;
 *  - MPI_Status is 24 bytes: source, tag, error, cancelled, then the
 *    received byte count as a 64-bit integer;
 *  - MPI_IN_PLACE is the address 0xffffffff, which no buffer can start at.
 *
 * Error classes have the values OpenMPI uses, so a program that prints them
 * prints the same numbers under both.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SYNERGY_MPI_H
#define SYNERGY_MPI_H

#include <stddef.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1

/* Handles. */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Group;
typedef int MPI_Win;
typedef int MPI_Info;
typedef int MPI_Errhandler;
typedef int MPI_Message;
typedef int MPI_File;
typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int synergy_cancelled;
  long long synergy_count; /* bytes received */
} MPI_Status;

/* Callback types. */
typedef void MPI_User_function(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm*, int*, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void MPI_Win_errhandler_function(MPI_Win*, int*, ...);
typedef void MPI_File_errhandler_function(MPI_File*, int*, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm, int, void*, void*, void*, int*);
typedef int MPI_Comm_delete_attr_function(MPI_Comm, int, void*, void*);
/* The predefined attribute callbacks. The null ones are the null pointer,
 * which the runtime takes as "do not copy" and "nothing to delete";
 * MPI_COMM_DUP_FN copies the value. */
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function*)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function*)0)
#define MPI_COMM_DUP_FN synergy_mpi_comm_dup_fn
__attribute__((weak)) int synergy_mpi_comm_dup_fn(MPI_Comm comm, int keyval, void* extra_state,
                                                  void* attribute_val_in,
                                                  void* attribute_val_out, int* flag) {
  (void)comm;
  (void)keyval;
  (void)extra_state;
  *(void**)attribute_val_out = attribute_val_in;
  *flag = 1;
  return 0;
}
/* The same for datatypes, and MPI-1's names for the communicator ones. */
typedef int MPI_Type_copy_attr_function(MPI_Datatype, int, void*, void*, void*, int*);
typedef int MPI_Type_delete_attr_function(MPI_Datatype, int, void*, void*);
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function*)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function*)0)
#define MPI_TYPE_DUP_FN synergy_mpi_type_dup_fn
__attribute__((weak)) int synergy_mpi_type_dup_fn(MPI_Datatype type, int keyval,
                                                  void* extra_state, void* attribute_val_in,
                                                  void* attribute_val_out, int* flag) {
  (void)type;
  (void)keyval;
  (void)extra_state;
  *(void**)attribute_val_out = attribute_val_in;
  *flag = 1;
  return 0;
}
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_DUP_FN MPI_COMM_DUP_FN
/* And for windows, which are never duplicated. */
typedef int MPI_Win_copy_attr_function(MPI_Win, int, void*, void*, void*, int*);
typedef int MPI_Win_delete_attr_function(MPI_Win, int, void*, void*);
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function*)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function*)0)
#define MPI_WIN_DUP_FN synergy_mpi_win_dup_fn
__attribute__((weak)) int synergy_mpi_win_dup_fn(MPI_Win win, int keyval, void* extra_state,
                                                 void* attribute_val_in, void* attribute_val_out,
                                                 int* flag) {
  (void)win;
  (void)keyval;
  (void)extra_state;
  *(void**)attribute_val_out = attribute_val_in;
  *flag = 1;
  return 0;
}

/* Communicators, groups and other predefined handles. */
#define MPI_COMM_NULL 0
#define MPI_COMM_WORLD 1
#define MPI_COMM_SELF 2
#define MPI_GROUP_NULL 0
#define MPI_GROUP_EMPTY 1
#define MPI_REQUEST_NULL 0
#define MPI_WIN_NULL 0
#define MPI_INFO_NULL 0
#define MPI_INFO_ENV 1
#define MPI_MESSAGE_NULL 0
#define MPI_MESSAGE_NO_PROC 1
#define MPI_FILE_NULL 0
#define MPI_ERRHANDLER_NULL 0
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN 2

/* Datatypes. */
#define MPI_DATATYPE_NULL 0
#define MPI_CHAR 1
#define MPI_SIGNED_CHAR 2
#define MPI_UNSIGNED_CHAR 3
#define MPI_BYTE 4
#define MPI_SHORT 5
#define MPI_UNSIGNED_SHORT 6
#define MPI_INT 7
#define MPI_UNSIGNED 8
#define MPI_LONG 9
#define MPI_UNSIGNED_LONG 10
#define MPI_LONG_LONG_INT 11
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG 12
#define MPI_FLOAT 13
#define MPI_DOUBLE 14
#define MPI_LONG_DOUBLE 15
#define MPI_WCHAR 16
#define MPI_C_BOOL 17
#define MPI_INT8_T 18
#define MPI_INT16_T 19
#define MPI_INT32_T 20
#define MPI_INT64_T 21
#define MPI_UINT8_T 22
#define MPI_UINT16_T 23
#define MPI_UINT32_T 24
#define MPI_UINT64_T 25
#define MPI_AINT 26
#define MPI_OFFSET 27
#define MPI_COUNT 28
#define MPI_C_FLOAT_COMPLEX 29
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX 30
#define MPI_C_LONG_DOUBLE_COMPLEX 31
#define MPI_PACKED 32
#define MPI_CXX_BOOL 33
#define MPI_FLOAT_INT 34
#define MPI_DOUBLE_INT 35
#define MPI_LONG_INT 36
#define MPI_2INT 37
#define MPI_SHORT_INT 38
#define MPI_LONG_DOUBLE_INT 39
/* Fortran's named types, usable from C (MPI-3.1 section 18.2.5), laid out
 * as a Fortran compiler with 4-byte default INTEGER, REAL and LOGICAL does;
 * reductions apply to them as to the C types of the same layout. */
#define MPI_INTEGER 40
#define MPI_REAL 41
#define MPI_DOUBLE_PRECISION 42
#define MPI_COMPLEX 43
#define MPI_DOUBLE_COMPLEX 44
#define MPI_LOGICAL 45
#define MPI_CHARACTER 46
#define MPI_INTEGER1 47
#define MPI_INTEGER2 48
#define MPI_INTEGER4 49
#define MPI_INTEGER8 50
#define MPI_REAL4 51
#define MPI_REAL8 52
#define MPI_REAL16 53
#define MPI_COMPLEX8 54
#define MPI_COMPLEX16 55
#define MPI_COMPLEX32 56
#define MPI_2INTEGER 57
/* C++'s complex types, laid out as C's. */
#define MPI_CXX_FLOAT_COMPLEX 58
#define MPI_CXX_DOUBLE_COMPLEX 59
#define MPI_CXX_LONG_DOUBLE_COMPLEX 60
/* Fortran's pair types for MPI_MINLOC and MPI_MAXLOC. */
#define MPI_2REAL 61
#define MPI_2DOUBLE_PRECISION 62

/* MPI_Type_match_size's type classes. */
#define MPI_TYPECLASS_INTEGER 1
#define MPI_TYPECLASS_REAL 2
#define MPI_TYPECLASS_COMPLEX 3

/* Reduction operations. */
#define MPI_OP_NULL 0
#define MPI_MAX 1
#define MPI_MIN 2
#define MPI_SUM 3
#define MPI_PROD 4
#define MPI_LAND 5
#define MPI_BAND 6
#define MPI_LOR 7
#define MPI_BOR 8
#define MPI_LXOR 9
#define MPI_BXOR 10
#define MPI_MAXLOC 11
#define MPI_MINLOC 12
#define MPI_REPLACE 13
#define MPI_NO_OP 14

/* Special values. */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-4)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 128
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_OBJECT_NAME 64
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 36
#define MPI_MAX_INFO_VAL 256
#define MPI_MAX_PORT_NAME 1024
#define MPI_MAX_DATAREP_STRING 128
#define MPI_DISPLACEMENT_CURRENT (-54278278LL)

#define MPI_BOTTOM ((void*)0)
#define MPI_IN_PLACE ((void*)-1)
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_ERRCODES_IGNORE ((int*)0)
#define MPI_ARGV_NULL ((char**)0)
#define MPI_ARGVS_NULL ((char***)0)
#define MPI_UNWEIGHTED ((int*)2)
#define MPI_WEIGHTS_EMPTY ((int*)3)

/* Attribute keys on MPI_COMM_WORLD. */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_APPNUM 5
#define MPI_UNIVERSE_SIZE 6
#define MPI_LASTUSEDCODE 7

/* Attribute keys on windows, and the values of the last two. */
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

/* Thread levels, comparison results, topologies, split types. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3
#define MPI_CART 1
#define MPI_GRAPH 2
#define MPI_DIST_GRAPH 3
#define MPI_COMM_TYPE_SHARED 0
#define MPI_ORDER_C 0
#define MPI_ORDER_FORTRAN 1
#define MPI_DISTRIBUTE_BLOCK 0
#define MPI_DISTRIBUTE_CYCLIC 1
#define MPI_DISTRIBUTE_NONE 2
#define MPI_DISTRIBUTE_DFLT_DARG (-1)

/* One-sided. */
#define MPI_MODE_NOCHECK 1
#define MPI_MODE_NOPRECEDE 2
#define MPI_MODE_NOPUT 4
#define MPI_MODE_NOSTORE 8
#define MPI_MODE_NOSUCCEED 16
#define MPI_LOCK_EXCLUSIVE 1
#define MPI_LOCK_SHARED 2

/* Datatype combiners (MPI_Type_get_envelope). */
#define MPI_COMBINER_NAMED 0
#define MPI_COMBINER_DUP 1
#define MPI_COMBINER_CONTIGUOUS 2
#define MPI_COMBINER_VECTOR 3
#define MPI_COMBINER_HVECTOR 4
#define MPI_COMBINER_INDEXED 5
#define MPI_COMBINER_HINDEXED 6
#define MPI_COMBINER_INDEXED_BLOCK 7
#define MPI_COMBINER_HINDEXED_BLOCK 8
#define MPI_COMBINER_STRUCT 9
#define MPI_COMBINER_SUBARRAY 10
#define MPI_COMBINER_DARRAY 11
#define MPI_COMBINER_RESIZED 12
/* Fortran-only combiners: declared for programs that test for them; a C
   program's types never have them. */
#define MPI_COMBINER_HVECTOR_INTEGER 13
#define MPI_COMBINER_HINDEXED_INTEGER 14
#define MPI_COMBINER_STRUCT_INTEGER 15
#define MPI_COMBINER_F90_REAL 16
#define MPI_COMBINER_F90_COMPLEX 17
#define MPI_COMBINER_F90_INTEGER 18

/* Error classes (the values OpenMPI uses). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_ASSERT 22
#define MPI_ERR_BAD_FILE 23
#define MPI_ERR_BASE 24
#define MPI_ERR_CONVERSION 25
#define MPI_ERR_DISP 26
#define MPI_ERR_DUP_DATAREP 27
#define MPI_ERR_FILE_EXISTS 28
#define MPI_ERR_FILE_IN_USE 29
#define MPI_ERR_FILE 30
#define MPI_ERR_INFO_KEY 31
#define MPI_ERR_INFO_NOKEY 32
#define MPI_ERR_INFO_VALUE 33
#define MPI_ERR_INFO 34
#define MPI_ERR_IO 35
#define MPI_ERR_KEYVAL 36
#define MPI_ERR_LOCKTYPE 37
#define MPI_ERR_NAME 38
#define MPI_ERR_NO_MEM 39
#define MPI_ERR_NOT_SAME 40
#define MPI_ERR_NO_SPACE 41
#define MPI_ERR_NO_SUCH_FILE 42
#define MPI_ERR_PORT 43
#define MPI_ERR_QUOTA 44
#define MPI_ERR_READ_ONLY 45
#define MPI_ERR_RMA_CONFLICT 46
#define MPI_ERR_RMA_SYNC 47
#define MPI_ERR_SERVICE 48
#define MPI_ERR_SIZE 49
#define MPI_ERR_SPAWN 50
#define MPI_ERR_UNSUPPORTED_DATAREP 51
#define MPI_ERR_UNSUPPORTED_OPERATION 52
#define MPI_ERR_WIN 53
#define MPI_T_ERR_MEMORY 54
#define MPI_T_ERR_NOT_INITIALIZED 55
#define MPI_T_ERR_CANNOT_INIT 56
#define MPI_T_ERR_INVALID_INDEX 57
#define MPI_T_ERR_INVALID_ITEM 58
#define MPI_T_ERR_INVALID_HANDLE 59
#define MPI_T_ERR_OUT_OF_HANDLES 60
#define MPI_T_ERR_OUT_OF_SESSIONS 61
#define MPI_T_ERR_INVALID_SESSION 62
#define MPI_T_ERR_CVAR_SET_NOT_NOW 63
#define MPI_T_ERR_CVAR_SET_NEVER 64
#define MPI_T_ERR_PVAR_NO_STARTSTOP 65
#define MPI_T_ERR_PVAR_NO_WRITE 66
#define MPI_T_ERR_PVAR_NO_ATOMIC 67
#define MPI_ERR_RMA_RANGE 68
#define MPI_ERR_RMA_ATTACH 69
#define MPI_ERR_RMA_FLAVOR 70
#define MPI_ERR_RMA_SHARED 71
#define MPI_T_ERR_INVALID 72
#define MPI_T_ERR_INVALID_NAME 73
#define MPI_ERR_LASTCODE 92

/* Environment. */
int MPI_Init(int* argc, char*** argv);
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
int MPI_Initialized(int* flag);
int MPI_Finalize(void);
int MPI_Finalized(int* flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Query_thread(int* provided);
int MPI_Is_thread_main(int* flag);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Get_processor_name(char* name, int* resultlen);
int MPI_Get_version(int* version, int* subversion);
int MPI_Get_library_version(char* version, int* resultlen);
int MPI_Pcontrol(const int level, ...);

/* Errors. */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler);
int MPI_Errhandler_free(MPI_Errhandler* errhandler);

/* User error handlers on communicators, and MPI-1's names for them. */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function,
                               MPI_Errhandler* errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler);
int MPI_Error_string(int errorcode, char* string, int* resultlen);
int MPI_Error_class(int errorcode, int* errorclass);
int MPI_Add_error_class(int* errorclass);
int MPI_Add_error_code(int errorclass, int* errorcode);
int MPI_Add_error_string(int errorcode, const char* string);

/* Communicators and groups. */
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm);
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm* newcomm);
int MPI_Comm_free(MPI_Comm* comm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result);
int MPI_Comm_group(MPI_Comm comm, MPI_Group* group);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm);
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm);
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request);
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request);
int MPI_Comm_test_inter(MPI_Comm comm, int* flag);
int MPI_Comm_remote_size(MPI_Comm comm, int* size);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group);
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm* newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm);
int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name);
int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen);
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                           void* extra_state);
int MPI_Comm_free_keyval(int* comm_keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val);
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                      void* extra_state);
int MPI_Keyval_free(int* keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val);
int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag);
int MPI_Attr_delete(MPI_Comm comm, int keyval);
int MPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                           MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                           void* extra_state);
int MPI_Type_free_keyval(int* type_keyval);
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val);
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag);
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
int MPI_Group_size(MPI_Group group, int* size);
int MPI_Group_rank(MPI_Group group, int* rank);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
int MPI_Group_free(MPI_Group* group);

/* Point to point. */
int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm);
int MPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm);
int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm);
int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status);
int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request* request);
int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request);
int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request);
int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request);
int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request);
int MPI_Wait(MPI_Request* request, MPI_Status* status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status);
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[]);
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status);
int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag,
                MPI_Status array_of_statuses[]);
int MPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag,
                MPI_Status* status);
int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[]);
int MPI_Request_free(MPI_Request* request);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status);
int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count);
int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count);
int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count);
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status* status);
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status* status);
/* MPI-4.0: both parts start at once and the request completes with both. */
int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Request* request);
int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request* request);
int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request);
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request);
int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Request* request);
int MPI_Start(MPI_Request* request);
int MPI_Startall(int count, MPI_Request array_of_requests[]);
int MPI_Buffer_attach(void* buffer, int size);
int MPI_Buffer_detach(void* buffer_addr, int* size);

/* Matched probe, cancellation, status queries, persistent buffered and
 * ready sends, generalized requests. A matched message is out of matching:
 * only MPI_Mrecv/MPI_Imrecv with its handle receives it. */
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status);
int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
              MPI_Status* status);
MPI_Fint MPI_Message_c2f(MPI_Message message);
MPI_Message MPI_Message_f2c(MPI_Fint message);
int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
               MPI_Request* request);
int MPI_Cancel(MPI_Request* request);
int MPI_Test_cancelled(const MPI_Status* status, int* flag);
int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status);
int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count);
int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count);
int MPI_Status_set_cancelled(MPI_Status* status, int flag);
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request);
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request);
typedef int MPI_Grequest_query_function(void* extra_state, MPI_Status* status);
typedef int MPI_Grequest_free_function(void* extra_state);
typedef int MPI_Grequest_cancel_function(void* extra_state, int complete);
int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                       MPI_Request* request);
int MPI_Grequest_complete(MPI_Request request);

/* Collectives. */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm);
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm);
int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op);
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm);
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm);
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm);
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm);

/* Nonblocking collectives: complete through MPI_Wait, MPI_Test and their
 * array forms. */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request);
int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request);
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request);
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request* request);
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request);
int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request);
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request);
int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request);
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request);
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request);
int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request);
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);
int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request);
int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request);
int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request* request);

int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op);
int MPI_Op_free(MPI_Op* op);
int MPI_Op_commutative(MPI_Op op, int* commute);

/* Datatypes. */
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype* newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype* newtype);
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype* newtype);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype* newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype* newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype* newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype* newtype);
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype* newtype);
int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name);
int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype);
int MPI_Type_commit(MPI_Datatype* datatype);
int MPI_Type_free(MPI_Datatype* datatype);
int MPI_Type_size(MPI_Datatype datatype, int* size);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent);
int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                          int* num_datatypes, int* combiner);
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent);
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype);

/* Packing: a datatype's data bytes, back to back, as MPI_PACKED messages
 * carry them. */
int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
             int* position, MPI_Comm comm);
int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size);
int MPI_Pack_external(const char datarep[], const void* inbuf, int incount,
                      MPI_Datatype datatype, void* outbuf, MPI_Aint outsize, MPI_Aint* position);
int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                        MPI_Aint* position, void* outbuf, int outcount, MPI_Datatype datatype);
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint* size);

/* Topologies. */
int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* comm_cart);
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest);
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int MPI_Cartdim_get(MPI_Comm comm, int* ndims);
int MPI_Topo_test(MPI_Comm comm, int* status);

/* Graph and distributed-graph topologies, and the neighbourhood collectives
 * on every kind of topology. */
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank);
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm* comm_graph);
int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges);
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors);
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank);
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm* comm_dist_graph);
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm* comm_dist_graph);
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted);
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]);
int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm);
int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request);
int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request* request);
int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request);
int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request);

/* One-sided. */
int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win* win);
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                     MPI_Win* win);
int MPI_Win_fence(int assert_, MPI_Win win);
int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count,
            MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Win_free(MPI_Win* win);
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag);
int MPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                          MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                          void* extra_state);
int MPI_Win_free_keyval(int* win_keyval);
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val);
int MPI_Win_delete_attr(MPI_Win win, int win_keyval);

/* Passive-target synchronisation. */
int MPI_Win_lock(int lock_type, int rank, int assert_, MPI_Win win);
int MPI_Win_unlock(int rank, MPI_Win win);
int MPI_Win_lock_all(int assert_, MPI_Win win);
int MPI_Win_unlock_all(MPI_Win win);
int MPI_Win_flush(int rank, MPI_Win win);
int MPI_Win_flush_all(MPI_Win win);
int MPI_Win_flush_local(int rank, MPI_Win win);
int MPI_Win_flush_local_all(MPI_Win win);
int MPI_Win_sync(MPI_Win win);

/* Atomic and request-based one-sided operations. */
int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win);
int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void* result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request);
int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request* request);
int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request);
int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request* request);

/* Post-start-complete-wait synchronisation. */
int MPI_Win_post(MPI_Group group, int assert_, MPI_Win win);
int MPI_Win_start(MPI_Group group, int assert_, MPI_Win win);
int MPI_Win_complete(MPI_Win win);
int MPI_Win_wait(MPI_Win win);
int MPI_Win_test(MPI_Win win, int* flag);

/* Dynamic and shared-memory windows. A shared window's part of another
 * rank lives in that rank's own linear memory: MPI_Win_shared_query
 * answers only for the caller's own part (see README). */
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win);
int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size);
int MPI_Win_detach(MPI_Win win, const void* base);
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void* baseptr, MPI_Win* win);
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr);

/* A window's group, error handler, name and info hints. */
int MPI_Win_get_group(MPI_Win win, MPI_Group* group);
int MPI_Win_create_errhandler(MPI_Win_errhandler_function* function,
                              MPI_Errhandler* errhandler);
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler);
int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
int MPI_Win_set_name(MPI_Win win, const char* win_name);
int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen);
int MPI_Win_set_info(MPI_Win win, MPI_Info info);
int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used);

/* Memory for windows and messages: from the program's own heap. */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr);
int MPI_Free_mem(void* base);

/* Info objects: hints, kept and reported back; none changes what the
 * runtime does. MPI_INFO_ENV holds "maxprocs". */
int MPI_Info_create(MPI_Info* info);
int MPI_Info_set(MPI_Info info, const char* key, const char* value);
int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag);
int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag);
int MPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag);
int MPI_Info_get_nkeys(MPI_Info info, int* nkeys);
int MPI_Info_get_nthkey(MPI_Info info, int n, char* key);
int MPI_Info_delete(MPI_Info info, const char* key);
int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo);
int MPI_Info_free(MPI_Info* info);
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used);

/* MPI-IO: files opened collectively through the guest's own open(), so a
 * path resolves against the current directory and the --dir grants like any
 * other; one host, the "native" and "external32" data representations (the
 * latter not for types holding MPI_AINT). Files default to
 * MPI_ERRORS_RETURN. Each access completes when it is made: a nonblocking
 * one returns a completed request, and MPI_File_iread's status holds the
 * count. */
/* ROMIO's names from before MPI-2 made file requests MPI_Requests, which
 * MPICH and OpenMPI still declare and MPICH's io/async test uses. */
#define MPIO_USES_MPI_REQUEST 1
#define MPIO_Request MPI_Request
#define MPIO_Wait MPI_Wait
#define MPIO_Test MPI_Test
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_MAX_DATAREP_STRING 128
#define MPI_DISPLACEMENT_CURRENT (-54278278LL)
int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh);
int MPI_File_close(MPI_File* fh);
int MPI_File_delete(const char* filename, MPI_Info info);
int MPI_File_set_size(MPI_File fh, MPI_Offset size);
int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
int MPI_File_get_size(MPI_File fh, MPI_Offset* size);
int MPI_File_get_group(MPI_File fh, MPI_Group* group);
int MPI_File_get_amode(MPI_File fh, int* amode);
int MPI_File_set_info(MPI_File fh, MPI_Info info);
int MPI_File_get_info(MPI_File fh, MPI_Info* info_used);
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char* datarep, MPI_Info info);
int MPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                      char* datarep);
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                     MPI_Status* status);
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                         MPI_Datatype datatype, MPI_Status* status);
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                      MPI_Datatype datatype, MPI_Status* status);
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                          MPI_Datatype datatype, MPI_Status* status);
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                      MPI_Request* request);
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                       MPI_Datatype datatype, MPI_Request* request);
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                          MPI_Datatype datatype, MPI_Request* request);
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                           MPI_Datatype datatype, MPI_Request* request);
int MPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status);
int MPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                      MPI_Status* status);
int MPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                   MPI_Status* status);
int MPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                       MPI_Status* status);
int MPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request);
int MPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                    MPI_Request* request);
int MPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                       MPI_Request* request);
int MPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                        MPI_Request* request);
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position(MPI_File fh, MPI_Offset* offset);
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp);
int MPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                         MPI_Status* status);
int MPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status);
int MPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                          MPI_Request* request);
int MPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Request* request);
int MPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status);
int MPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status);
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset);
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                               MPI_Datatype datatype);
int MPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status);
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                MPI_Datatype datatype);
int MPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status);
int MPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype);
int MPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status);
int MPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype);
int MPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status);
int MPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype);
int MPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status);
int MPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype);
int MPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status);
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent);
int MPI_File_set_atomicity(MPI_File fh, int flag);
int MPI_File_get_atomicity(MPI_File fh, int* flag);
int MPI_File_sync(MPI_File fh);
int MPI_File_create_errhandler(MPI_File_errhandler_function* function,
                               MPI_Errhandler* errhandler);
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
int MPI_File_call_errhandler(MPI_File fh, int errorcode);
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler);
MPI_Fint MPI_File_c2f(MPI_File file);
MPI_File MPI_File_f2c(MPI_Fint file);

/* The tool information interface (MPI-3.1 chapter 14). The runtime exposes
 * no control or performance variables and no categories, which the standard
 * allows: every count is 0, every index and name is invalid, and sessions
 * can be created and freed. Handles are ints, like every other handle here. */
typedef int MPI_T_enum;
typedef int MPI_T_cvar_handle;
typedef int MPI_T_pvar_handle;
typedef int MPI_T_pvar_session;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)-1)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
enum {
  MPI_T_VERBOSITY_USER_BASIC, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_VERBOSITY_USER_ALL,
  MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
  MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_VERBOSITY_MPIDEV_ALL
};
enum {
  MPI_T_SCOPE_CONSTANT, MPI_T_SCOPE_READONLY, MPI_T_SCOPE_LOCAL, MPI_T_SCOPE_GROUP,
  MPI_T_SCOPE_GROUP_EQ, MPI_T_SCOPE_ALL, MPI_T_SCOPE_ALL_EQ
};
enum {
  MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE,
  MPI_T_BIND_MPI_ERRHANDLER, MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP, MPI_T_BIND_MPI_OP,
  MPI_T_BIND_MPI_REQUEST, MPI_T_BIND_MPI_WIN, MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO
};
enum {
  MPI_T_PVAR_CLASS_STATE, MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_SIZE,
  MPI_T_PVAR_CLASS_PERCENTAGE, MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_PVAR_CLASS_LOWWATERMARK,
  MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_AGGREGATE, MPI_T_PVAR_CLASS_TIMER,
  MPI_T_PVAR_CLASS_GENERIC
};
int MPI_T_init_thread(int required, int* provided);
int MPI_T_finalize(void);
int MPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len);
int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name,
                        int* name_len);
int MPI_T_cvar_get_num(int* num_cvar);
int MPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                        MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc,
                        int* desc_len, int* bind, int* scope);
int MPI_T_cvar_get_index(const char* name, int* cvar_index);
int MPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle,
                            int* count);
int MPI_T_cvar_handle_free(MPI_T_cvar_handle* handle);
int MPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf);
int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf);
int MPI_T_pvar_get_num(int* num_pvar);
int MPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity,
                        int* var_class, MPI_Datatype* datatype, MPI_T_enum* enumtype,
                        char* desc, int* desc_len, int* bind, int* readonly,
                        int* continuous, int* atomic);
int MPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index);
int MPI_T_pvar_session_create(MPI_T_pvar_session* session);
int MPI_T_pvar_session_free(MPI_T_pvar_session* session);
int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle,
                            MPI_T_pvar_handle* handle, int* count);
int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle);
int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf);
int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf);
int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf);
int MPI_T_category_get_num(int* num_cat);
int MPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc,
                            int* desc_len, int* num_cvars, int* num_pvars,
                            int* num_categories);
int MPI_T_category_get_index(const char* name, int* cat_index);
int MPI_T_category_get_cvars(int cat_index, int len, int indices[]);
int MPI_T_category_get_pvars(int cat_index, int len, int indices[]);
int MPI_T_category_get_categories(int cat_index, int len, int indices[]);
int MPI_T_category_changed(int* stamp);

/* Addresses are plain guest addresses, so these need no runtime call. */
static inline int MPI_Get_address(const void* location, MPI_Aint* address) {
  *address = (MPI_Aint)location;
  return MPI_SUCCESS;
}
static inline MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
static inline MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }

/* Guest memory for the runtime: user-defined reduction ops must see their
 * operands inside the guest, so the runtime borrows scratch space from the
 * program's own allocator through these exports. Weak, so every translation
 * unit may carry them. */
__attribute__((weak, export_name("synergy_mpi_alloc"))) void* synergy_mpi_alloc(size_t bytes) {
  return malloc(bytes);
}
__attribute__((weak, export_name("synergy_mpi_free"))) void synergy_mpi_free(void* block) {
  free(block);
}

/* The profiling interface (MPI-4.0 §15.2): every MPI function is also
 * callable as PMPI_name, so a tool may define its own MPI_name that calls
 * PMPI_name to reach the library's. The runtime serves each host function
 * once, as import env.MPI_name, and PMPI_name imports that same function:
 * a program's own MPI_name is a definition, not an import, so it takes
 * over every call to MPI_name while PMPI_name still reaches the runtime.
 * The functions the guest library defines itself (MPI_File_open, _close,
 * _delete) are weak there, with PMPI_name their strong definition. */
#define SYNERGY_PMPI(name)                         \
  extern __typeof__(MPI_##name) PMPI_##name        \
      __attribute__((import_module("env"), import_name("MPI_" #name)));
SYNERGY_PMPI(Abort)
SYNERGY_PMPI(Accumulate)
SYNERGY_PMPI(Add_error_class)
SYNERGY_PMPI(Add_error_code)
SYNERGY_PMPI(Add_error_string)
SYNERGY_PMPI(Allgather)
SYNERGY_PMPI(Allgatherv)
SYNERGY_PMPI(Alloc_mem)
SYNERGY_PMPI(Allreduce)
SYNERGY_PMPI(Alltoall)
SYNERGY_PMPI(Alltoallv)
SYNERGY_PMPI(Alltoallw)
SYNERGY_PMPI(Attr_delete)
SYNERGY_PMPI(Attr_get)
SYNERGY_PMPI(Attr_put)
SYNERGY_PMPI(Barrier)
SYNERGY_PMPI(Bcast)
SYNERGY_PMPI(Bsend)
SYNERGY_PMPI(Bsend_init)
SYNERGY_PMPI(Buffer_attach)
SYNERGY_PMPI(Buffer_detach)
SYNERGY_PMPI(Cancel)
SYNERGY_PMPI(Cart_coords)
SYNERGY_PMPI(Cart_create)
SYNERGY_PMPI(Cart_get)
SYNERGY_PMPI(Cart_map)
SYNERGY_PMPI(Cart_rank)
SYNERGY_PMPI(Cart_shift)
SYNERGY_PMPI(Cart_sub)
SYNERGY_PMPI(Cartdim_get)
SYNERGY_PMPI(Comm_call_errhandler)
SYNERGY_PMPI(Comm_compare)
SYNERGY_PMPI(Comm_create)
SYNERGY_PMPI(Comm_create_errhandler)
SYNERGY_PMPI(Comm_create_group)
SYNERGY_PMPI(Comm_create_keyval)
SYNERGY_PMPI(Comm_delete_attr)
SYNERGY_PMPI(Comm_dup)
SYNERGY_PMPI(Comm_dup_with_info)
SYNERGY_PMPI(Comm_free)
SYNERGY_PMPI(Comm_free_keyval)
SYNERGY_PMPI(Comm_get_attr)
SYNERGY_PMPI(Comm_get_errhandler)
SYNERGY_PMPI(Comm_get_info)
SYNERGY_PMPI(Comm_get_name)
SYNERGY_PMPI(Comm_group)
SYNERGY_PMPI(Comm_idup)
SYNERGY_PMPI(Comm_idup_with_info)
SYNERGY_PMPI(Comm_rank)
SYNERGY_PMPI(Comm_remote_group)
SYNERGY_PMPI(Comm_remote_size)
SYNERGY_PMPI(Comm_set_attr)
SYNERGY_PMPI(Comm_set_errhandler)
SYNERGY_PMPI(Comm_set_info)
SYNERGY_PMPI(Comm_set_name)
SYNERGY_PMPI(Comm_size)
SYNERGY_PMPI(Comm_split)
SYNERGY_PMPI(Comm_split_type)
SYNERGY_PMPI(Comm_test_inter)
SYNERGY_PMPI(Compare_and_swap)
SYNERGY_PMPI(Dims_create)
SYNERGY_PMPI(Dist_graph_create)
SYNERGY_PMPI(Dist_graph_create_adjacent)
SYNERGY_PMPI(Dist_graph_neighbors)
SYNERGY_PMPI(Dist_graph_neighbors_count)
SYNERGY_PMPI(Errhandler_create)
SYNERGY_PMPI(Errhandler_free)
SYNERGY_PMPI(Errhandler_get)
SYNERGY_PMPI(Errhandler_set)
SYNERGY_PMPI(Error_class)
SYNERGY_PMPI(Error_string)
SYNERGY_PMPI(Exscan)
SYNERGY_PMPI(Fetch_and_op)
SYNERGY_PMPI(File_c2f)
SYNERGY_PMPI(File_call_errhandler)
SYNERGY_PMPI(File_create_errhandler)
SYNERGY_PMPI(File_f2c)
SYNERGY_PMPI(File_get_amode)
SYNERGY_PMPI(File_get_atomicity)
SYNERGY_PMPI(File_get_byte_offset)
SYNERGY_PMPI(File_get_errhandler)
SYNERGY_PMPI(File_get_group)
SYNERGY_PMPI(File_get_info)
SYNERGY_PMPI(File_get_position)
SYNERGY_PMPI(File_get_position_shared)
SYNERGY_PMPI(File_get_size)
SYNERGY_PMPI(File_get_type_extent)
SYNERGY_PMPI(File_get_view)
SYNERGY_PMPI(File_iread)
SYNERGY_PMPI(File_iread_all)
SYNERGY_PMPI(File_iread_at)
SYNERGY_PMPI(File_iread_at_all)
SYNERGY_PMPI(File_iread_shared)
SYNERGY_PMPI(File_iwrite)
SYNERGY_PMPI(File_iwrite_all)
SYNERGY_PMPI(File_iwrite_at)
SYNERGY_PMPI(File_iwrite_at_all)
SYNERGY_PMPI(File_iwrite_shared)
SYNERGY_PMPI(File_preallocate)
SYNERGY_PMPI(File_read)
SYNERGY_PMPI(File_read_all)
SYNERGY_PMPI(File_read_all_begin)
SYNERGY_PMPI(File_read_all_end)
SYNERGY_PMPI(File_read_at)
SYNERGY_PMPI(File_read_at_all)
SYNERGY_PMPI(File_read_at_all_begin)
SYNERGY_PMPI(File_read_at_all_end)
SYNERGY_PMPI(File_read_ordered)
SYNERGY_PMPI(File_read_ordered_begin)
SYNERGY_PMPI(File_read_ordered_end)
SYNERGY_PMPI(File_read_shared)
SYNERGY_PMPI(File_seek)
SYNERGY_PMPI(File_seek_shared)
SYNERGY_PMPI(File_set_atomicity)
SYNERGY_PMPI(File_set_errhandler)
SYNERGY_PMPI(File_set_info)
SYNERGY_PMPI(File_set_size)
SYNERGY_PMPI(File_set_view)
SYNERGY_PMPI(File_sync)
SYNERGY_PMPI(File_write)
SYNERGY_PMPI(File_write_all)
SYNERGY_PMPI(File_write_all_begin)
SYNERGY_PMPI(File_write_all_end)
SYNERGY_PMPI(File_write_at)
SYNERGY_PMPI(File_write_at_all)
SYNERGY_PMPI(File_write_at_all_begin)
SYNERGY_PMPI(File_write_at_all_end)
SYNERGY_PMPI(File_write_ordered)
SYNERGY_PMPI(File_write_ordered_begin)
SYNERGY_PMPI(File_write_ordered_end)
SYNERGY_PMPI(File_write_shared)
SYNERGY_PMPI(Finalize)
SYNERGY_PMPI(Finalized)
SYNERGY_PMPI(Free_mem)
SYNERGY_PMPI(Gather)
SYNERGY_PMPI(Gatherv)
SYNERGY_PMPI(Get)
SYNERGY_PMPI(Get_accumulate)
SYNERGY_PMPI(Get_count)
SYNERGY_PMPI(Get_elements)
SYNERGY_PMPI(Get_elements_x)
SYNERGY_PMPI(Get_library_version)
SYNERGY_PMPI(Get_processor_name)
SYNERGY_PMPI(Get_version)
SYNERGY_PMPI(Graph_create)
SYNERGY_PMPI(Graph_get)
SYNERGY_PMPI(Graph_map)
SYNERGY_PMPI(Graph_neighbors)
SYNERGY_PMPI(Graph_neighbors_count)
SYNERGY_PMPI(Graphdims_get)
SYNERGY_PMPI(Grequest_complete)
SYNERGY_PMPI(Grequest_start)
SYNERGY_PMPI(Group_compare)
SYNERGY_PMPI(Group_difference)
SYNERGY_PMPI(Group_excl)
SYNERGY_PMPI(Group_free)
SYNERGY_PMPI(Group_incl)
SYNERGY_PMPI(Group_intersection)
SYNERGY_PMPI(Group_range_excl)
SYNERGY_PMPI(Group_range_incl)
SYNERGY_PMPI(Group_rank)
SYNERGY_PMPI(Group_size)
SYNERGY_PMPI(Group_translate_ranks)
SYNERGY_PMPI(Group_union)
SYNERGY_PMPI(Iallgather)
SYNERGY_PMPI(Iallgatherv)
SYNERGY_PMPI(Iallreduce)
SYNERGY_PMPI(Ialltoall)
SYNERGY_PMPI(Ialltoallv)
SYNERGY_PMPI(Ialltoallw)
SYNERGY_PMPI(Ibarrier)
SYNERGY_PMPI(Ibcast)
SYNERGY_PMPI(Ibsend)
SYNERGY_PMPI(Iexscan)
SYNERGY_PMPI(Igather)
SYNERGY_PMPI(Igatherv)
SYNERGY_PMPI(Improbe)
SYNERGY_PMPI(Imrecv)
SYNERGY_PMPI(Ineighbor_allgather)
SYNERGY_PMPI(Ineighbor_allgatherv)
SYNERGY_PMPI(Ineighbor_alltoall)
SYNERGY_PMPI(Ineighbor_alltoallv)
SYNERGY_PMPI(Ineighbor_alltoallw)
SYNERGY_PMPI(Info_create)
SYNERGY_PMPI(Info_delete)
SYNERGY_PMPI(Info_dup)
SYNERGY_PMPI(Info_free)
SYNERGY_PMPI(Info_get)
SYNERGY_PMPI(Info_get_nkeys)
SYNERGY_PMPI(Info_get_nthkey)
SYNERGY_PMPI(Info_get_string)
SYNERGY_PMPI(Info_get_valuelen)
SYNERGY_PMPI(Info_set)
SYNERGY_PMPI(Init)
SYNERGY_PMPI(Init_thread)
SYNERGY_PMPI(Initialized)
SYNERGY_PMPI(Intercomm_create)
SYNERGY_PMPI(Intercomm_merge)
SYNERGY_PMPI(Iprobe)
SYNERGY_PMPI(Irecv)
SYNERGY_PMPI(Ireduce)
SYNERGY_PMPI(Ireduce_scatter)
SYNERGY_PMPI(Ireduce_scatter_block)
SYNERGY_PMPI(Irsend)
SYNERGY_PMPI(Is_thread_main)
SYNERGY_PMPI(Iscan)
SYNERGY_PMPI(Iscatter)
SYNERGY_PMPI(Iscatterv)
SYNERGY_PMPI(Isend)
SYNERGY_PMPI(Isendrecv)
SYNERGY_PMPI(Isendrecv_replace)
SYNERGY_PMPI(Issend)
SYNERGY_PMPI(Keyval_create)
SYNERGY_PMPI(Keyval_free)
SYNERGY_PMPI(Message_c2f)
SYNERGY_PMPI(Message_f2c)
SYNERGY_PMPI(Mprobe)
SYNERGY_PMPI(Mrecv)
SYNERGY_PMPI(Neighbor_allgather)
SYNERGY_PMPI(Neighbor_allgatherv)
SYNERGY_PMPI(Neighbor_alltoall)
SYNERGY_PMPI(Neighbor_alltoallv)
SYNERGY_PMPI(Neighbor_alltoallw)
SYNERGY_PMPI(Op_commutative)
SYNERGY_PMPI(Op_create)
SYNERGY_PMPI(Op_free)
SYNERGY_PMPI(Pack)
SYNERGY_PMPI(Pack_external)
SYNERGY_PMPI(Pack_external_size)
SYNERGY_PMPI(Pack_size)
SYNERGY_PMPI(Pcontrol)
SYNERGY_PMPI(Probe)
SYNERGY_PMPI(Put)
SYNERGY_PMPI(Query_thread)
SYNERGY_PMPI(Raccumulate)
SYNERGY_PMPI(Recv)
SYNERGY_PMPI(Recv_init)
SYNERGY_PMPI(Reduce)
SYNERGY_PMPI(Reduce_local)
SYNERGY_PMPI(Reduce_scatter)
SYNERGY_PMPI(Reduce_scatter_block)
SYNERGY_PMPI(Request_free)
SYNERGY_PMPI(Request_get_status)
SYNERGY_PMPI(Rget)
SYNERGY_PMPI(Rget_accumulate)
SYNERGY_PMPI(Rput)
SYNERGY_PMPI(Rsend)
SYNERGY_PMPI(Rsend_init)
SYNERGY_PMPI(Scan)
SYNERGY_PMPI(Scatter)
SYNERGY_PMPI(Scatterv)
SYNERGY_PMPI(Send)
SYNERGY_PMPI(Send_init)
SYNERGY_PMPI(Sendrecv)
SYNERGY_PMPI(Sendrecv_replace)
SYNERGY_PMPI(Ssend)
SYNERGY_PMPI(Ssend_init)
SYNERGY_PMPI(Start)
SYNERGY_PMPI(Startall)
SYNERGY_PMPI(Status_set_cancelled)
SYNERGY_PMPI(Status_set_elements)
SYNERGY_PMPI(Status_set_elements_x)
SYNERGY_PMPI(T_category_changed)
SYNERGY_PMPI(T_category_get_categories)
SYNERGY_PMPI(T_category_get_cvars)
SYNERGY_PMPI(T_category_get_index)
SYNERGY_PMPI(T_category_get_info)
SYNERGY_PMPI(T_category_get_num)
SYNERGY_PMPI(T_category_get_pvars)
SYNERGY_PMPI(T_cvar_get_index)
SYNERGY_PMPI(T_cvar_get_info)
SYNERGY_PMPI(T_cvar_get_num)
SYNERGY_PMPI(T_cvar_handle_alloc)
SYNERGY_PMPI(T_cvar_handle_free)
SYNERGY_PMPI(T_cvar_read)
SYNERGY_PMPI(T_cvar_write)
SYNERGY_PMPI(T_enum_get_info)
SYNERGY_PMPI(T_enum_get_item)
SYNERGY_PMPI(T_finalize)
SYNERGY_PMPI(T_init_thread)
SYNERGY_PMPI(T_pvar_get_index)
SYNERGY_PMPI(T_pvar_get_info)
SYNERGY_PMPI(T_pvar_get_num)
SYNERGY_PMPI(T_pvar_handle_alloc)
SYNERGY_PMPI(T_pvar_handle_free)
SYNERGY_PMPI(T_pvar_read)
SYNERGY_PMPI(T_pvar_readreset)
SYNERGY_PMPI(T_pvar_reset)
SYNERGY_PMPI(T_pvar_session_create)
SYNERGY_PMPI(T_pvar_session_free)
SYNERGY_PMPI(T_pvar_start)
SYNERGY_PMPI(T_pvar_stop)
SYNERGY_PMPI(T_pvar_write)
SYNERGY_PMPI(Test)
SYNERGY_PMPI(Test_cancelled)
SYNERGY_PMPI(Testall)
SYNERGY_PMPI(Testany)
SYNERGY_PMPI(Testsome)
SYNERGY_PMPI(Topo_test)
SYNERGY_PMPI(Type_commit)
SYNERGY_PMPI(Type_contiguous)
SYNERGY_PMPI(Type_create_darray)
SYNERGY_PMPI(Type_create_hindexed)
SYNERGY_PMPI(Type_create_hindexed_block)
SYNERGY_PMPI(Type_create_hvector)
SYNERGY_PMPI(Type_create_indexed_block)
SYNERGY_PMPI(Type_create_keyval)
SYNERGY_PMPI(Type_create_resized)
SYNERGY_PMPI(Type_create_struct)
SYNERGY_PMPI(Type_create_subarray)
SYNERGY_PMPI(Type_delete_attr)
SYNERGY_PMPI(Type_dup)
SYNERGY_PMPI(Type_free)
SYNERGY_PMPI(Type_free_keyval)
SYNERGY_PMPI(Type_get_attr)
SYNERGY_PMPI(Type_get_contents)
SYNERGY_PMPI(Type_get_envelope)
SYNERGY_PMPI(Type_get_extent)
SYNERGY_PMPI(Type_get_extent_x)
SYNERGY_PMPI(Type_get_name)
SYNERGY_PMPI(Type_get_true_extent)
SYNERGY_PMPI(Type_get_true_extent_x)
SYNERGY_PMPI(Type_indexed)
SYNERGY_PMPI(Type_match_size)
SYNERGY_PMPI(Type_set_attr)
SYNERGY_PMPI(Type_set_name)
SYNERGY_PMPI(Type_size)
SYNERGY_PMPI(Type_size_x)
SYNERGY_PMPI(Type_vector)
SYNERGY_PMPI(Unpack)
SYNERGY_PMPI(Unpack_external)
SYNERGY_PMPI(Wait)
SYNERGY_PMPI(Waitall)
SYNERGY_PMPI(Waitany)
SYNERGY_PMPI(Waitsome)
SYNERGY_PMPI(Win_allocate)
SYNERGY_PMPI(Win_allocate_shared)
SYNERGY_PMPI(Win_attach)
SYNERGY_PMPI(Win_call_errhandler)
SYNERGY_PMPI(Win_complete)
SYNERGY_PMPI(Win_create)
SYNERGY_PMPI(Win_create_dynamic)
SYNERGY_PMPI(Win_create_errhandler)
SYNERGY_PMPI(Win_create_keyval)
SYNERGY_PMPI(Win_delete_attr)
SYNERGY_PMPI(Win_detach)
SYNERGY_PMPI(Win_fence)
SYNERGY_PMPI(Win_flush)
SYNERGY_PMPI(Win_flush_all)
SYNERGY_PMPI(Win_flush_local)
SYNERGY_PMPI(Win_flush_local_all)
SYNERGY_PMPI(Win_free)
SYNERGY_PMPI(Win_free_keyval)
SYNERGY_PMPI(Win_get_attr)
SYNERGY_PMPI(Win_get_errhandler)
SYNERGY_PMPI(Win_get_group)
SYNERGY_PMPI(Win_get_info)
SYNERGY_PMPI(Win_get_name)
SYNERGY_PMPI(Win_lock)
SYNERGY_PMPI(Win_lock_all)
SYNERGY_PMPI(Win_post)
SYNERGY_PMPI(Win_set_attr)
SYNERGY_PMPI(Win_set_errhandler)
SYNERGY_PMPI(Win_set_info)
SYNERGY_PMPI(Win_set_name)
SYNERGY_PMPI(Win_shared_query)
SYNERGY_PMPI(Win_start)
SYNERGY_PMPI(Win_sync)
SYNERGY_PMPI(Win_test)
SYNERGY_PMPI(Win_unlock)
SYNERGY_PMPI(Win_unlock_all)
SYNERGY_PMPI(Win_wait)
SYNERGY_PMPI(Wtick)
SYNERGY_PMPI(Wtime)
#undef SYNERGY_PMPI
extern __typeof__(MPI_File_close) PMPI_File_close;
extern __typeof__(MPI_File_delete) PMPI_File_delete;
extern __typeof__(MPI_File_open) PMPI_File_open;
static inline int PMPI_Get_address(const void* location, MPI_Aint* address) {
  return MPI_Get_address(location, address);
}
static inline MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return MPI_Aint_add(base, disp);
}
static inline MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return MPI_Aint_diff(addr1, addr2);
}

#ifdef __cplusplus
}
#endif

#endif /* SYNERGY_MPI_H */
