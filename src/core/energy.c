/*
 * energy.c - NVML energy meter; see energy.h.  The few NVML types used are
 * declared here (the ABI of the _v2/_v3 entry points), so no NVML header is
 * needed to build.
 */
#include "energy.h"
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define SAMPLE_NS 5000000L   /* power sampling period: 5 ms */

typedef int nvml_ret;   /* nvmlReturn_t: 0 is success */
typedef void *nvml_dev; /* nvmlDevice_t */

/* nvmlPciInfo_t (v3): busIdLegacy[16], domain, bus, device, pciDeviceId,
 * pciSubSystemId, busId[32]; read through a larger buffer. */
typedef struct pci_info {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, device_id, subsystem_id;
    char bus_id[32];
    char spare[64];
} pci_info;

struct hay_energy {
    void *lib;
    nvml_ret (*shutdown)(void);
    nvml_ret (*total_energy)(nvml_dev, unsigned long long *);
    nvml_ret (*power)(nvml_dev, unsigned int *);
    nvml_dev dev;
    bool counter;               /* else power sampling */
    unsigned long long mj0;     /* counter at open */
    /* power sampling */
    pthread_t thread;
    pthread_mutex_t lock;
    bool stop;
    double joules, last_t, last_w;
};

static double now_s(void)
{
    return hay_now();
}

static void *sampler(void *arg)
{
    hay_energy *e = arg;
    for (;;) {
        struct timespec ts = { 0, SAMPLE_NS };
        nanosleep(&ts, NULL);
        unsigned int mw = 0;
        bool ok = e->power(e->dev, &mw) == 0;
        double t = now_s();
        pthread_mutex_lock(&e->lock);
        if (ok) {
            double w = mw / 1000.0;
            e->joules += (t - e->last_t) * (w + e->last_w) / 2;
            e->last_w = w;
        } else {
            e->joules += (t - e->last_t) * e->last_w;
        }
        e->last_t = t;
        bool stop = e->stop;
        pthread_mutex_unlock(&e->lock);
        if (stop)
            return NULL;
    }
}

#define SYM(lib, name) dlsym((lib), (name))

hay_energy *hay_energy_open(int pci_domain, int pci_bus)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return NULL;
    nvml_ret (*init)(void) = (nvml_ret (*)(void))SYM(lib, "nvmlInit_v2");
    nvml_ret (*shutdown)(void) = (nvml_ret (*)(void))SYM(lib, "nvmlShutdown");
    nvml_ret (*count)(unsigned int *) =
        (nvml_ret (*)(unsigned int *))SYM(lib, "nvmlDeviceGetCount_v2");
    nvml_ret (*by_index)(unsigned int, nvml_dev *) =
        (nvml_ret (*)(unsigned int, nvml_dev *))SYM(lib, "nvmlDeviceGetHandleByIndex_v2");
    nvml_ret (*pci)(nvml_dev, pci_info *) =
        (nvml_ret (*)(nvml_dev, pci_info *))SYM(lib, "nvmlDeviceGetPciInfo_v3");
    nvml_ret (*total)(nvml_dev, unsigned long long *) =
        (nvml_ret (*)(nvml_dev, unsigned long long *))SYM(lib, "nvmlDeviceGetTotalEnergyConsumption");
    nvml_ret (*power)(nvml_dev, unsigned int *) =
        (nvml_ret (*)(nvml_dev, unsigned int *))SYM(lib, "nvmlDeviceGetPowerUsage");
    if (!init || !shutdown || !count || !by_index || init() != 0) {
        dlclose(lib);
        return NULL;
    }
    hay_energy *e = calloc(1, sizeof *e);
    unsigned int n = 0;
    if (!e || count(&n) != 0 || n == 0)
        goto fail;
    /* The device at the PCI location, or the only one. */
    bool found = false;
    for (unsigned int i = 0; i < n && !found; i++) {
        nvml_dev d;
        pci_info info;
        memset(&info, 0, sizeof info);
        if (by_index(i, &d) != 0)
            continue;
        if (pci_bus >= 0 && pci && pci(d, &info) == 0 &&
            info.bus == (unsigned int)pci_bus &&
            (pci_domain < 0 || info.domain == (unsigned int)pci_domain)) {
            e->dev = d;
            found = true;
        }
    }
    if (!found && n == 1 && by_index(0, &e->dev) == 0)
        found = true;
    if (!found)
        goto fail;
    e->lib = lib;
    e->shutdown = shutdown;
    e->total_energy = total;
    e->power = power;
    if (total && total(e->dev, &e->mj0) == 0) {
        e->counter = true;
        return e;
    }
    unsigned int mw;
    if (!power || power(e->dev, &mw) != 0)
        goto fail;
    pthread_mutex_init(&e->lock, NULL);
    e->last_t = now_s();
    e->last_w = mw / 1000.0;
    if (pthread_create(&e->thread, NULL, sampler, e) != 0) {
        pthread_mutex_destroy(&e->lock);
        goto fail;
    }
    return e;
fail:
    free(e);
    shutdown();
    dlclose(lib);
    return NULL;
}

double hay_energy_read(hay_energy *e)
{
    if (!e)
        return -1;
    if (e->counter) {
        unsigned long long mj;
        if (e->total_energy(e->dev, &mj) != 0)
            return -1;
        return (double)(mj - e->mj0) / 1000.0;
    }
    pthread_mutex_lock(&e->lock);
    double j = e->joules + (now_s() - e->last_t) * e->last_w;
    pthread_mutex_unlock(&e->lock);
    return j;
}

const char *hay_energy_method(const hay_energy *e)
{
    if (!e)
        return "unavailable";
    return e->counter ? "energy-counter" : "power-sampling";
}

void hay_energy_close(hay_energy *e)
{
    if (!e)
        return;
    if (!e->counter) {
        pthread_mutex_lock(&e->lock);
        e->stop = true;
        pthread_mutex_unlock(&e->lock);
        pthread_join(e->thread, NULL);
        pthread_mutex_destroy(&e->lock);
    }
    e->shutdown();
    dlclose(e->lib);
    free(e);
}
