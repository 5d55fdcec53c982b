#include "sim/mpi/world.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

#if FLEETSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace fleetsim::mpi {
namespace {

World g_world;
bool g_initialized = false;

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : -1;
}

// The number of ranks the launcher started, or -1 when no launcher did.
int launched_size() {
  if (const char* c = std::getenv("FLEETSIM_MPI_CHILD"); c && std::string(c) == "1") return -1;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"})
    if (int n = env_int(name); n > 0) return n;
  // PMIx (srun --mpi=pmix, Open MPI 5) exports the rank but not always the size.
  if (env_int("PMIX_RANK") >= 0) return 0;
  return -1;
}

#if FLEETSIM_HAVE_MPI
void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
#endif

}  // namespace

bool available() { return FLEETSIM_HAVE_MPI != 0; }

bool launched() { return launched_size() >= 0; }

World init() {
  if (g_initialized) return g_world;
  g_initialized = true;
  const int n = launched_size();
  if (n < 0) return g_world;
#if FLEETSIM_HAVE_MPI
  int provided = 0;
  // Only the main thread calls MPI; the point and replication threads never do.
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  std::atexit(finalize_at_exit);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &g_world.local_size);
  MPI_Comm_free(&node);
  mark_children_plain();
#else
  if (n > 1)
    throw ConfigError("", "mpirun",
                      "this fleetsim was built without MPI, so its " + std::to_string(n) +
                          " ranks would each run the whole command; rebuild with Open MPI installed "
                          "(apt-get install openmpi-bin libopenmpi-dev; CMake option FLEETSIM_MPI=ON) or run "
                          "without mpirun");
#endif
  return g_world;
}

World world() { return g_world; }

std::string gather_to_root(const std::string& mine) {
  const World w = g_world;
  if (w.size <= 1) return mine;
#if FLEETSIM_HAVE_MPI
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(w.size)), displs(static_cast<size_t>(w.size));
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int q = 0; q < w.size; ++q) displs[static_cast<size_t>(q)] = total, total += counts[static_cast<size_t>(q)];
  std::string all(w.root() ? static_cast<size_t>(total) : 0, '\0');
  MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  return all;
#else
  return mine;  // unreachable: init() refuses several ranks without MPI
#endif
}

void mark_children_plain() { setenv("FLEETSIM_MPI_CHILD", "1", 1); }

}  // namespace fleetsim::mpi
