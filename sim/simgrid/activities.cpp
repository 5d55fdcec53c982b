// The activities of the SimGrid tier: one contended collective step as concurrent flows, and one
// representative pipeline as stage actors exchanging activations and gradients.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <memory>
#include <string>

#include "sim/simgrid/platform_internal.hpp"
#include "sim/simgrid/sg_runs.hpp"

namespace sg4 = simgrid::s4u;

namespace fleetsim::sgtier {

namespace {
constexpr size_t kFlowsPerDriver = 64;  // sendto_async from a few driver actors (simgrid.md §4)

std::uint64_t wire_bytes(double bytes) { return static_cast<std::uint64_t>(std::max(1.0, bytes)); }
}  // namespace

double run_flow_step(const Fabric& fabric, const std::vector<Flow>& flows, const LinkScale& scale,
                     const EngineConfig& config) {
  std::vector<std::pair<int, int>> transfers;
  for (const Flow& f : flows) transfers.emplace_back(f.src, f.dst);
  build_platform(fabric, transfers, scale, config);

  struct State {
    std::vector<sg4::CommPtr> background;
    size_t drivers_left = 0;
    double end = 0;
  };
  auto st = std::make_shared<State>();
  std::vector<Flow> fg, bg;
  for (const Flow& f : flows) (f.background ? bg : fg).push_back(f);
  if (fg.empty()) return 0.0;
  st->drivers_left = (fg.size() + kFlowsPerDriver - 1) / kFlowsPerDriver;
  sg4::Host* driver_host = platform_host(fg.front().src);
  if (!bg.empty()) {
    sg4::Actor::create("background", driver_host, [st, bg] {
      for (const Flow& f : bg)
        st->background.push_back(sg4::Comm::sendto_async(platform_host(f.src), platform_host(f.dst), wire_bytes(f.bytes)));
    });
  }
  for (size_t first = 0; first < fg.size(); first += kFlowsPerDriver) {
    std::vector<Flow> mine(fg.begin() + first, fg.begin() + std::min(fg.size(), first + kFlowsPerDriver));
    sg4::Actor::create("driver", driver_host, [st, mine] {
      std::vector<sg4::CommPtr> comms;
      for (const Flow& f : mine)
        comms.push_back(sg4::Comm::sendto_async(platform_host(f.src), platform_host(f.dst), wire_bytes(f.bytes)));
      sg4::Comm::wait_all(comms);
      st->end = std::max(st->end, sg4::Engine::get_clock());
      if (--st->drivers_left == 0)
        for (auto& c : st->background) c->cancel();
    });
  }
  sg4::Engine::get_instance()->run();
  return st->end;
}

std::vector<double> run_pipeline(const Fabric& fabric, const PipelineProgram& prog, const EngineConfig& config) {
  const int P = prog.stages, V = std::max(1, prog.chunks);
  std::vector<std::pair<int, int>> transfers;
  for (int p = 0; p < P; ++p)
    for (int q : {p - 1, p + 1}) transfers.emplace_back(prog.stage_gpu[p], prog.stage_gpu[(q + P) % P]);
  build_platform(fabric, transfers, prog.scale, config);

  auto finish = std::make_shared<std::vector<double>>(P, 0.0);
  auto last_bwd = std::make_shared<std::vector<double>>(2 * static_cast<size_t>(P * V), 0.0);  // start, end per chunk
  // For the iteration trace (sg_runs.hpp): per stage, each op's start and end, and each transfer
  // it received (from, to, microbatch, start, end) as SimGrid timed the comm.
  auto op_times = std::make_shared<std::vector<std::vector<double>>>(P);
  auto received = std::make_shared<std::vector<std::vector<double>>>(P);
  static char payload = 0;
  auto box = [](bool forward, int virtual_stage, int mb) {
    return sg4::Mailbox::by_name((forward ? "f" : "b") + std::to_string(virtual_stage) + "_" + std::to_string(mb));
  };
  const int VS = P * V;
  for (int p = 0; p < P; ++p) {
    sg4::Actor::create("stage" + std::to_string(p), platform_host(prog.stage_gpu[p]),
                       [&prog, p, P, VS, box, finish, last_bwd, op_times, received] {
      // Eager transfers: this stage is the permanent receiver of its input mailboxes, so a
      // neighbour's send starts when issued (as a pre-posted NCCL receive would) and only the
      // in-flight transfers are live activities. An op may start once its input has landed plus
      // the receive-side delay.
      for (const PipeOp& op : prog.ops[p]) {
        const int v = op.chunk * P + p;
        if (op.forward ? v > 0 : v < VS - 1) box(op.forward, v, op.microbatch)->set_receiver(sg4::Actor::self());
      }
      static char* sink = nullptr;
      for (const PipeOp& op : prog.ops[p]) {
        const int v = op.chunk * P + p;
        if (op.forward ? v > 0 : v < VS - 1) {
          sg4::Mailbox* in = box(op.forward, v, op.microbatch);
          sg4::CommPtr c = in->get_async<char>(&sink);
          c->wait();
          in->set_receiver(nullptr);
          (*received)[p].insert((*received)[p].end(), {static_cast<double>(op.forward ? v - 1 : v + 1),
                                                       static_cast<double>(v), static_cast<double>(op.microbatch),
                                                       c->get_start_time(), c->get_finish_time()});
          const double ready = c->get_finish_time() + prog.receive_delay_s;
          if (ready > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(ready);
        }
        const double start = sg4::Engine::get_clock();
        if (op.duration_s > 0) sg4::this_actor::sleep_for(op.duration_s);
        (*op_times)[p].insert((*op_times)[p].end(), {start, sg4::Engine::get_clock()});
        if (!op.forward) {
          (*last_bwd)[2 * static_cast<size_t>(v)] = start;
          (*last_bwd)[2 * static_cast<size_t>(v) + 1] = sg4::Engine::get_clock();
        }
        if (op.forward ? v < VS - 1 : v > 0) {
          const int to = op.forward ? v + 1 : v - 1;
          box(op.forward, to, op.microbatch)->put_init(&payload, wire_bytes(prog.p2p_bytes))->detach();
        }
      }
      (*finish)[p] = sg4::Engine::get_clock();
    });
  }
  sg4::Engine::get_instance()->run();
  std::vector<double> out{*std::max_element(finish->begin(), finish->end())};
  out.insert(out.end(), finish->begin(), finish->end());
  for (int j = 0; j < VS; ++j) out.push_back((*last_bwd)[2 * static_cast<size_t>(j)]);
  for (int j = 0; j < VS; ++j) out.push_back((*last_bwd)[2 * static_cast<size_t>(j) + 1]);
  for (const auto& t : *op_times) out.insert(out.end(), t.begin(), t.end());
  size_t received_count = 0;
  for (const auto& r : *received) received_count += r.size() / 5;
  out.push_back(static_cast<double>(received_count));
  for (const auto& r : *received) out.insert(out.end(), r.begin(), r.end());
  return out;
}

}  // namespace fleetsim::sgtier
