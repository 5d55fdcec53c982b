// Unit tests of the search's pure parts: the space, the uneven splits, chunked loss and the
// rejection reasons (sim/search/space, uneven_split, feasibility).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "sim/core/error.hpp"
#include "sim/search/feasibility.hpp"
#include "sim/search/search.hpp"
#include "sim/search/space.hpp"
#include "sim/search/uneven_split.hpp"

using namespace fleetsim;
using namespace fleetsim::search;

TEST_CASE("the default split is even when PP x VPP divides the layers", "[unit]") {
  CHECK(default_split(96, 8, 2).empty());
  CHECK(default_split(126, 2, 1).empty());
}

TEST_CASE("otherwise the first and the last stage are the lighter ones, as in Llama 3", "[unit]") {
  const auto split = default_split(126, 16, 1);
  REQUIRE(split.size() == 16);
  CHECK(split.front() == 7);
  CHECK(split.back() == 7);
  for (size_t r = 1; r + 1 < split.size(); ++r) CHECK(split[r] == 8);
  CHECK(format_split(split) == "7, 8x14, 7");
  // 126 layers over 4 stages with 8 chunks each: 31, 32, 32, 31.
  CHECK(default_split(126, 4, 8) == std::vector<int>{31, 32, 32, 31});
}

TEST_CASE("an explicit split equal to the default one is the same layout", "[unit]") {
  WorkloadSpec w;
  w.model.num_layers = 126;
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.pipeline_model_parallel_size = 16;
  w.parallel.pipeline_layer_split = {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7};
  const Candidate c = from_workload(w, 16384);
  CHECK(c.dp == 128);
  CHECK(c.layer_split == default_split(126, 16, 1));
  w.model.num_layers = 128;
  w.parallel.pipeline_layer_split = std::vector<int>(16, 8);
  CHECK(from_workload(w, 16384).layer_split.empty());
}

TEST_CASE("a stage with more memory per layer gets fewer layers in the balanced split", "[unit]") {
  // Four stages equal in time; stage 0 holds p = 4 microbatches in flight, stage 3 one, and the
  // last stage carries the logits.
  const std::vector<StageLine> time(4, StageLine{0.0, 1.0});
  const std::vector<StageLine> memory{{1.0, 4.0}, {1.0, 3.0}, {1.0, 2.0}, {6.0, 1.0}};
  const auto split = balanced_split(32, 1, time, memory, 25.0);
  REQUIRE(split);
  CHECK(*split == std::vector<int>{6, 8, 9, 9});
  int sum = 0;
  for (size_t r = 0; r < split->size(); ++r) {
    CHECK(memory[r].at((*split)[r]) <= 25.0);
    sum += (*split)[r];
  }
  CHECK(sum == 32);
  CHECK((*split)[0] < (*split)[1]);
  CHECK((*split)[1] < (*split)[2]);
}

TEST_CASE("with room to spare the balanced split is the most even in time", "[unit]") {
  // The last stage has the logits: one layer's worth of extra time.
  const std::vector<StageLine> time{{0, 1}, {0, 1}, {0, 1}, {1, 1}};
  const std::vector<StageLine> memory(4, StageLine{0, 1});
  const auto split = balanced_split(15, 1, time, memory, 1e9);
  REQUIRE(split);
  CHECK(*split == std::vector<int>{4, 4, 4, 3});
}

TEST_CASE("the balanced split is empty when no split fits", "[unit]") {
  const std::vector<StageLine> time(2, StageLine{0, 1});
  const std::vector<StageLine> memory(2, StageLine{0, 10});
  CHECK_FALSE(balanced_split(10, 1, time, memory, 40.0));
  CHECK_FALSE(balanced_split(1, 1, time, memory, 1e9));  // fewer layers than stages
}

TEST_CASE("chunked loss keeps the logits of 1024 tokens instead of the whole microbatch", "[unit]") {
  WorkloadSpec w;
  w.model.seq_length = 8192;
  w.model.vocab_size = 128000;
  w.parallel.tensor_model_parallel_size = 8;
  w.training.micro_batch_size = 1;
  const double vocab_part = 8192.0 * 16000.0 * 6.0;
  const Bytes unchunked(vocab_part + 1.0e6);
  const Bytes chunked = chunked_logits_bytes(w, unchunked);
  CHECK(chunked.si() == Approx(vocab_part / 8.0 + 1.0e6));
  // A microbatch shorter than one chunk is unchanged.
  w.model.seq_length = 512;
  CHECK(chunked_logits_bytes(w, Bytes(512.0 * 16000.0 * 6.0)).si() == Approx(512.0 * 16000.0 * 6.0));
}

TEST_CASE("every rejection reason has its own key", "[unit]") {
  std::set<std::string> keys;
  for (int i = 0; i < static_cast<int>(Reason::Count); ++i) keys.insert(reason_key(static_cast<Reason>(i)));
  CHECK(keys.size() == static_cast<size_t>(Reason::Count));
  RejectionCounts c;
  c.add(Reason::OutOfMemory, 3);
  c.add(Reason::BatchNotDivisible);
  CHECK(c.total() == 4);
  CHECK(c.by_key().at("out_of_memory") == 3);
}

TEST_CASE("a dimension of the space can be replaced from the command line", "[unit]") {
  Space sp;
  override_dimension(sp, "tp=4, 8,8");
  CHECK(sp.tp == std::vector<int>{4, 8});
  override_dimension(sp, "recompute_granularity=none,full");
  CHECK(sp.recompute.size() == 2);
  override_dimension(sp, "balanced_splits=false");
  CHECK_FALSE(sp.balanced_splits);
  CHECK_THROWS_AS(override_dimension(sp, "warp=2"), ConfigError);
  CHECK_THROWS_AS(override_dimension(sp, "tp=0"), ConfigError);
  CHECK_THROWS_AS(override_dimension(sp, "zero_stage=4"), ConfigError);
  CHECK_THROWS_AS(override_dimension(sp, "sequence_parallel=maybe"), ConfigError);
  CHECK_THROWS_AS(override_dimension(sp, "tp"), ConfigError);
}

TEST_CASE("an objective that does not exist is a configuration error", "[unit]") {
  CHECK(parse_objective("mfu") == Objective::Mfu);
  CHECK(parse_objective("time-to-train") == Objective::TimeToTrain);
  CHECK_THROWS_AS(parse_objective("fastest"), ConfigError);
}

TEST_CASE("a candidate reads back as the --set overrides that reproduce it", "[unit]") {
  Candidate c;
  c.tp = 8; c.pp = 4; c.vpp = 2; c.dp = 64; c.zero_stage = 1; c.sequence_parallel = true;
  c.layer_split = {31, 32, 32, 31};
  const auto sets = to_sets(c);
  CHECK(std::find(sets.begin(), sets.end(), "workload.parallel.pipeline_layer_split=[31,32,32,31]") != sets.end());
  CHECK(std::find(sets.begin(), sets.end(), "workload.parallel.use_distributed_optimizer=true") != sets.end());
  CHECK(describe(c).find("TP 8, PP 4 (layers 31, 32x2, 31), VPP 2") == 0);
}
