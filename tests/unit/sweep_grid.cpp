#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/sweep/grid.hpp"

using namespace fleetsim;
using namespace fleetsim::sweep;

TEST_CASE("sweep values split on commas and keep their spaces", "[unit]") {
  CHECK(split_values("10 min, 30 min,1 h") == std::vector<std::string>{"10 min", "30 min", "1 h"});
  CHECK(split_values("air-chiller") == std::vector<std::string>{"air-chiller"});
}

TEST_CASE("sweep values do not split inside YAML lists, maps or quotes", "[unit]") {
  CHECK(split_values("[7,8,8,7],[8,8,8,8]") == std::vector<std::string>{"[7,8,8,7]", "[8,8,8,8]"});
  CHECK(split_values("{preset: llama3-clos, oversubscription: 2},x") ==
        std::vector<std::string>{"{preset: llama3-clos, oversubscription: 2}", "x"});
  CHECK(split_values("'a,b',c") == std::vector<std::string>{"'a,b'", "c"});
}

TEST_CASE("an axis is key=values, a missing '=' or an empty value is a config error", "[unit]") {
  Axis a = parse_axis("checkpoint.interval=10 min,30 min");
  CHECK(a.key == "checkpoint.interval");
  CHECK(a.values == std::vector<std::string>{"10 min", "30 min"});
  CHECK_THROWS_AS(parse_axis("cluster.gpus"), ConfigError);
  CHECK_THROWS_AS(parse_axis("=1,2"), ConfigError);
  CHECK_THROWS_AS(parse_axis("cluster.gpus="), ConfigError);
  CHECK_THROWS_AS(parse_axis("cluster.gpus=1,,2"), ConfigError);
}

TEST_CASE("the grid is the product of the axes with the last axis fastest", "[unit]") {
  auto pts = expand_grid({parse_axis("a.x=1,2"), parse_axis("b.y=p,q,r")}, false, {});
  REQUIRE(pts.size() == 6);
  CHECK(pts[0].sets() == std::vector<std::string>{"a.x=1", "b.y=p"});
  CHECK(pts[1].sets() == std::vector<std::string>{"a.x=1", "b.y=q"});
  CHECK(pts[3].sets() == std::vector<std::string>{"a.x=2", "b.y=p"});
  CHECK(pts[5].index == 5);
  CHECK(pts[5].label() == "x=2 y=r");
}

TEST_CASE("zipped axes pair their i-th values and must have the same length", "[unit]") {
  auto pts = expand_grid({parse_axis("cluster.gpus=8192,16384"),
                          parse_axis("workload.training.global_batch_size=1024,2048")},
                         true, {});
  REQUIRE(pts.size() == 2);
  CHECK(pts[1].sets() == std::vector<std::string>{"cluster.gpus=16384", "workload.training.global_batch_size=2048"});
  CHECK_THROWS_AS(expand_grid({parse_axis("a=1,2"), parse_axis("b=1")}, true, {}), ConfigError);
}

TEST_CASE("a key varied twice or a repeated value is a config error", "[unit]") {
  CHECK_THROWS_AS(expand_grid({parse_axis("a=1"), parse_axis("a=2")}, false, {}), ConfigError);
  CHECK_THROWS_AS(expand_grid({parse_axis("a=1,1")}, false, {}), ConfigError);
}

TEST_CASE("point file names are readable, deterministic and depend on the base", "[unit]") {
  GridBase base{"llama3-405b-16k", {"run.duration=5d"}, 3, 1, ""};
  auto name = point_file_name({{"checkpoint.interval", "10 min"}, {"cluster.cooling", "liquid-dlc"}}, base);
  CHECK(name.rfind("interval-10_min_cooling-liquid-dlc_", 0) == 0);
  CHECK(name.size() == std::string("interval-10_min_cooling-liquid-dlc_").size() + 8 + 3);
  CHECK(name.substr(name.size() - 3) == ".h5");
  CHECK(point_file_name({{"checkpoint.interval", "10 min"}, {"cluster.cooling", "liquid-dlc"}}, base) == name);
  GridBase other = base;
  other.replications = 4;
  CHECK(point_file_name({{"checkpoint.interval", "10 min"}, {"cluster.cooling", "liquid-dlc"}}, other) != name);
  // "10 min" and "10_min" share a slug but not a file.
  CHECK(point_file_name({{"checkpoint.interval", "10_min"}, {"cluster.cooling", "liquid-dlc"}}, base) != name);
}

TEST_CASE("a companion key moves with its leader while the other axes form a product", "[unit]") {
  std::vector<Axis> axes = {parse_axis("cluster.gpus=16384,32768"), parse_axis("checkpoint.interval=10 min,1 h")};
  attach_companion(axes, "cluster.gpus:workload.training.global_batch_size=2048,4096");
  CHECK(all_keys(axes) ==
        std::vector<std::string>{"cluster.gpus", "workload.training.global_batch_size", "checkpoint.interval"});
  auto pts = expand_grid(axes, false, {});
  REQUIRE(pts.size() == 4);
  CHECK(pts[2].sets() == std::vector<std::string>{"cluster.gpus=32768", "workload.training.global_batch_size=4096",
                                                  "checkpoint.interval=10 min"});
}

TEST_CASE("a companion needs an existing leader and as many values", "[unit]") {
  std::vector<Axis> axes = {parse_axis("cluster.gpus=16384,32768")};
  CHECK_THROWS_AS(attach_companion(axes, "cluster.nodes:x=1,2"), ConfigError);
  CHECK_THROWS_AS(attach_companion(axes, "cluster.gpus:x=1"), ConfigError);
  CHECK_THROWS_AS(attach_companion(axes, "x=1,2"), ConfigError);
}

TEST_CASE("zipping makes the first axis lead and the others its companions", "[unit]") {
  auto axes = zip_axes({parse_axis("a=1,2"), parse_axis("b=3,4"), parse_axis("c=5,6")});
  REQUIRE(axes.size() == 1);
  CHECK(axes[0].key == "a");
  CHECK(all_keys(axes) == std::vector<std::string>{"a", "b", "c"});
}
