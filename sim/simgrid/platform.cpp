// The SimGrid engine and platform of the SimGrid tier: a custom zone with arithmetic routing
// (docs/research/simgrid.md §2.3b; SimGrid's fat-tree builder is quadratic) over the links of a
// Fabric. Uses SimGrid 3.32's kernel routing API, which changes between releases: keep it here.
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "sim/simgrid/platform_internal.hpp"
#include "sim/simgrid/sg_runs.hpp"

namespace sg4 = simgrid::s4u;
namespace sgr = simgrid::kernel::routing;

namespace fleetsim::sgtier {

namespace {

class FabricZone : public sgr::NetZoneImpl {
 public:
  FabricZone(const std::string& name, const Fabric& fabric) : NetZoneImpl(name), fabric_(fabric) {}

  void add_gpu(int gpu) {
    sg4::Host* h = create_host("gpu" + std::to_string(gpu), std::vector<double>{1e12});
    h->seal();
    gpu_of_netpoint_[h->get_netpoint()->id()] = gpu;
    host_of_gpu_[gpu] = h;
  }
  void add_link(LinkId id, double bandwidth) {
    sg4::Link* l = create_link(link_name(id), std::vector<double>{bandwidth});
    l->set_latency(fabric_.latency(id));
    l->seal();
    links_[id.key()] = l->get_impl();
  }
  sg4::Host* host(int gpu) const {
    auto it = host_of_gpu_.find(gpu);
    if (it == host_of_gpu_.end()) throw std::logic_error("simgrid tier: GPU " + std::to_string(gpu) + " is not on the platform");
    return it->second;
  }

  void get_local_route(const sgr::NetPoint* src, const sgr::NetPoint* dst, sgr::Route* into, double* latency) override {
    const int a = gpu_of_netpoint_.at(src->id()), b = gpu_of_netpoint_.at(dst->id());
    const auto route = fabric_.route(a, b);
    for (LinkId id : route) {
      auto it = links_.find(id.key());
      if (it == links_.end()) throw std::logic_error("simgrid tier: link " + link_name(id) + " was not built");
      into->link_list_.push_back(it->second);
    }
    if (latency) *latency += fabric_.route_latency(route);
  }

 private:
  const Fabric& fabric_;
  std::unordered_map<unsigned long, int> gpu_of_netpoint_;
  std::unordered_map<int, sg4::Host*> host_of_gpu_;
  std::unordered_map<std::uint64_t, simgrid::kernel::resource::StandardLinkImpl*> links_;
};

FabricZone* g_zone = nullptr;
sg4::Engine* g_engine = nullptr;

}  // namespace

sg4::Host* platform_host(int gpu) { return g_zone->host(gpu); }

void build_platform(const Fabric& fabric, const std::vector<std::pair<int, int>>& transfers, const LinkScale& scale,
                    const EngineConfig& config) {
  if (g_engine) throw std::logic_error("simgrid tier: one SimGrid engine per process (fork per evaluation)");
  g_engine = new sg4::Engine("fleetsim");
  if (!config.verbose) xbt_log_control_set("root.thresh:critical");
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  for (const std::string& c : config.cfg) sg4::Engine::set_config(c);

  std::vector<int> gpus;
  std::unordered_set<std::uint64_t> seen;
  std::vector<LinkId> links;
  for (auto [a, b] : transfers) {
    gpus.push_back(a);
    gpus.push_back(b);
    for (LinkId id : fabric.route(a, b))
      if (seen.insert(id.key()).second) links.push_back(id);
  }
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());

  g_zone = new FabricZone("fabric", fabric);  // the first zone without a parent becomes the root
  for (int g : gpus) g_zone->add_gpu(g);
  for (LinkId id : links) g_zone->add_link(id, scale.apply(fabric, id));
  g_zone->seal();
}

}  // namespace fleetsim::sgtier
