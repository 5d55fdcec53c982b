// The MPI world of this process: which rank it is among how many. MPI is initialized only when
// the process was started by an MPI launcher (mpirun, mpiexec, srun), never as a singleton, so a
// plain `fleetsim ...` (or a test) never touches MPI. Every command that can spread its work
// (sweep, run, search) calls init() first; a world of size 1 runs exactly as without MPI.
#pragma once

#include <string>

namespace fleetsim::mpi {

struct World {
  int rank = 0;
  int size = 1;
  int local_size = 1;  // ranks on this machine (they share its cores)
  bool root() const { return rank == 0; }
};

// True when this binary was built with MPI (CMake option FLEETSIM_MPI).
bool available();

// True when the environment says a launcher started this process as one of several ranks
// (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_SIZE, ...). The sweep's point processes carry
// FLEETSIM_MPI_CHILD=1 and are never ranks themselves.
bool launched();

// Initializes MPI once when launched() (MPI_Finalize runs at exit) and returns the world; a
// world of one rank otherwise. Throws ConfigError when launched with several ranks by a build
// without MPI (each process would run the whole command and they would overwrite each other).
World init();

// The world init() returned (rank 0 of 1 before init).
World world();

// Every rank's string, concatenated in rank order on rank 0 (empty on the other ranks; the string
// itself in a world of one). Collective: every rank of the world calls it.
std::string gather_to_root(const std::string& mine);

// Sets FLEETSIM_MPI_CHILD=1 in this process's environment, so child processes it starts (the
// sweep's points) run as plain processes.
void mark_children_plain();

}  // namespace fleetsim::mpi
