"""Issue 25: the HDF5 file carries each headline value's interval and each section's provenance as attributes."""
import h5py


def test_headline_metrics_carry_their_interval_and_sections_their_provenance(real_h5):
    with h5py.File(real_h5) as f:
        for name in ("step/iteration_time_s", "step/mfu", "run/ettr", "run/wall_clock_days", "run/tokens_trained"):
            a = f["metrics/" + name].attrs
            assert a["interval_level"] == 0.8
            assert a["interval_lo"] <= a["interval_hi"]
        t = f["metrics/step/iteration_time_s"]
        assert t.attrs["interval_lo"] < t[0] < t.attrs["interval_hi"]
        for section in ("step", "run"):
            a = f["metrics/" + section].attrs
            assert a["provenance_grade"] in ("calibrated", "transferred", "extrapolated", "uncalibrated")
            assert a["provenance_why"] and a["provenance_sources"]
