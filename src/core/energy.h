/*
 * energy.h - the energy an NVIDIA GPU consumes, read through NVML, which is
 * loaded at run time (dlopen of libnvidia-ml.so.1): nothing to link, and
 * on machines without it the meter is simply unavailable.
 *
 * The meter reads the driver's total-energy counter
 * (nvmlDeviceGetTotalEnergyConsumption, millijoules) where the GPU has one
 * (Volta and later); otherwise a thread samples the board power
 * (nvmlDeviceGetPowerUsage) every few milliseconds and integrates it.
 * Either way the counter advances in steps of some milliseconds, so the
 * energy of a phase shorter than that is coarse: repeat the phase and
 * divide (the OpenCL bench does).
 */
#ifndef HAY_ENERGY_H
#define HAY_ENERGY_H

typedef struct hay_energy hay_energy;

/*
 * Opens a meter on the NVIDIA GPU at PCI (domain, bus) (domain < 0:
 * any; bus < 0: the only GPU NVML sees).  Returns NULL when NVML, the
 * device or both energy readings are unavailable.
 */
hay_energy *hay_energy_open(int pci_domain, int pci_bus);

/* Joules the device consumed since the meter was opened; < 0 on error
 * or for a NULL meter. */
double hay_energy_read(hay_energy *e);

/* "energy-counter", "power-sampling" or "unavailable". */
const char *hay_energy_method(const hay_energy *e);

void hay_energy_close(hay_energy *e);

#endif
