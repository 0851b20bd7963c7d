"""bench/energy.py - energy meters for the benchmark driver (standard library only).

CPU: the package counters of RAPL under /sys/class/powercap (intel-rapl:N,
and AMD's, which the kernel exposes under the same name), read before and
after a command; wrap-around handled.  GPU: NVML through ctypes
(libnvidia-ml.so.1): the total-energy counter of device 0
(nvmlDeviceGetTotalEnergyConsumption, mJ), or, where the device has none,
the power read every 10 ms by a thread and integrated (trapezoids).  A meter
that cannot be read says "unavailable"; nothing here raises on a machine
without RAPL or NVML.

    m = Meters()
    with m.measure() as e:
        subprocess.run(...)
    e.cpu_j, e.gpu_j        # joules, or None when unavailable
    m.cpu_method, m.gpu_method
"""
import ctypes
import os
import re
import threading
import time

RAPL_ROOT = "/sys/class/powercap"


class Rapl:
    def __init__(self):
        self.domains = []
        try:
            names = sorted(os.listdir(RAPL_ROOT))
        except OSError:
            names = []
        for n in names:
            if not re.fullmatch(r"intel-rapl:\d+", n):
                continue
            path = os.path.join(RAPL_ROOT, n, "energy_uj")
            try:
                with open(path) as f:
                    int(f.read())
                with open(os.path.join(RAPL_ROOT, n, "max_energy_range_uj")) as f:
                    wrap = int(f.read())
            except (OSError, ValueError):
                continue
            self.domains.append((path, wrap))

    def read(self):
        if not self.domains:
            return None
        vals = []
        try:
            for path, _ in self.domains:
                with open(path) as f:
                    vals.append(int(f.read()))
        except (OSError, ValueError):
            return None
        return vals

    def joules(self, a, b):
        if a is None or b is None:
            return None
        total = 0
        for (_, wrap), x, y in zip(self.domains, a, b):
            total += y - x if y >= x else y + wrap - x
        return total / 1e6


class Nvml:
    """Device 0 through NVML; method 'nvml-counter', 'nvml-power-sampling' or None."""

    def __init__(self):
        self.method = None
        self.lib = None
        if os.environ.get("HAY_BENCH_NO_NVML"):
            return
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
        except OSError:
            return
        try:
            if lib.nvmlInit_v2() != 0:
                return
            dev = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) != 0:
                return
        except AttributeError:
            return
        self.lib, self.dev = lib, dev
        mj = ctypes.c_ulonglong()
        try:
            if lib.nvmlDeviceGetTotalEnergyConsumption(dev, ctypes.byref(mj)) == 0:
                self.method = "nvml-counter"
                return
        except AttributeError:
            pass
        mw = ctypes.c_uint()
        if lib.nvmlDeviceGetPowerUsage(dev, ctypes.byref(mw)) == 0:
            self.method = "nvml-power-sampling"

    def counter(self):
        mj = ctypes.c_ulonglong()
        if self.lib.nvmlDeviceGetTotalEnergyConsumption(self.dev, ctypes.byref(mj)) != 0:
            return None
        return mj.value / 1e3

    def power(self):
        mw = ctypes.c_uint()
        if self.lib.nvmlDeviceGetPowerUsage(self.dev, ctypes.byref(mw)) != 0:
            return None
        return mw.value / 1e3


class Sample:
    cpu_j = None
    gpu_j = None
    seconds = None


class _Measure:
    def __init__(self, meters):
        self.m = meters
        self.s = Sample()

    def __enter__(self):
        m = self.m
        self.t0 = time.perf_counter()
        self.c0 = m.rapl.read()
        self.g0 = None
        if m.gpu_method == "nvml-counter":
            self.g0 = m.nvml.counter()
        elif m.gpu_method == "nvml-power-sampling":
            self.stop = False
            self.acc = [0.0, time.perf_counter(), m.nvml.power() or 0.0]
            self.th = threading.Thread(target=self._sample, daemon=True)
            self.th.start()
        return self.s

    def _sample(self):
        while not self.stop:
            time.sleep(0.01)
            w = self.m.nvml.power()
            t = time.perf_counter()
            if w is not None:
                self.acc[0] += (t - self.acc[1]) * (w + self.acc[2]) / 2
                self.acc[1], self.acc[2] = t, w

    def __exit__(self, *exc):
        m = self.m
        self.s.seconds = time.perf_counter() - self.t0
        self.s.cpu_j = m.rapl.joules(self.c0, m.rapl.read())
        if m.gpu_method == "nvml-counter" and self.g0 is not None:
            g1 = m.nvml.counter()
            self.s.gpu_j = None if g1 is None else g1 - self.g0
        elif m.gpu_method == "nvml-power-sampling":
            self.stop = True
            self.th.join()
            self.s.gpu_j = self.acc[0]
        return False


class Meters:
    def __init__(self):
        self.rapl = Rapl()
        self.nvml = Nvml()
        self.cpu_method = "rapl" if self.rapl.domains and self.rapl.read() else None
        self.gpu_method = self.nvml.method

    def measure(self):
        return _Measure(self)

    def describe(self):
        return "CPU: %s; GPU: %s" % (
            "RAPL package counters (%d)" % len(self.rapl.domains) if self.cpu_method
            else "unavailable (no readable RAPL powercap counter)",
            self.gpu_method or "unavailable (no NVML device)")
