"""Static catalogue: availability zones and the GPU/accelerator instance types we model.

Which instance type is offered in which AZ is fixed per region (by AZ
letter), so tests can rely on "p5.48xlarge is not offered in us-west-2b".
SageMaker HyperPod uses the same table through the `ml.` prefix.
"""

DIRECTIONS = {"north": "n", "south": "s", "east": "e", "west": "w", "central": "c",
              "northeast": "ne", "southeast": "se", "northwest": "nw", "southwest": "sw"}

AZ_LETTERS = ("a", "b", "c", "d")


def region_abbrev(region):
    parts = region.split("-")
    if len(parts) < 3:
        return region.replace("-", "")
    return parts[0] + "".join(DIRECTIONS.get(p, p[:1]) for p in parts[1:-1]) + parts[-1]


def zones(region):
    """[(zoneName, zoneId)] -- zone ids are deliberately not in letter order."""
    ab = region_abbrev(region)
    ids = (2, 1, 3, 4)
    return [(region + letter, "%s-az%d" % (ab, ids[i])) for i, letter in enumerate(AZ_LETTERS)]


def zone_id(region, zone_name):
    for name, zid in zones(region):
        if name == zone_name:
            return zid
    return None


def zone_name(region, zid):
    for name, z in zones(region):
        if z == zid:
            return name
    return None


# name: (vcpus, mem GiB, accel count, accel name, accel manufacturer, accel mem GiB each,
#        efa interfaces (0 = no EFA), network performance, AZ letters, neuron?)
_ALL = "abcd"
TYPES = {
    "p4d.24xlarge": (96, 1152, 8, "A100", "NVIDIA", 40, 4, "4x 100 Gigabit", "abc", False),
    "p4de.24xlarge": (96, 1152, 8, "A100", "NVIDIA", 80, 4, "4x 100 Gigabit", "b", False),
    "p5.48xlarge": (192, 2048, 8, "H100", "NVIDIA", 80, 32, "3200 Gigabit", "ac", False),
    "p5e.48xlarge": (192, 2048, 8, "H200", "NVIDIA", 141, 32, "3200 Gigabit", "c", False),
    "p5en.48xlarge": (192, 2048, 8, "H200", "NVIDIA", 141, 16, "3200 Gigabit", "bd", False),
    "p6-b200.48xlarge": (192, 2048, 8, "B200", "NVIDIA", 179, 8, "3200 Gigabit", "d", False),
    "g5.xlarge": (4, 16, 1, "A10G", "NVIDIA", 24, 0, "Up to 10 Gigabit", _ALL, False),
    "g5.2xlarge": (8, 32, 1, "A10G", "NVIDIA", 24, 0, "Up to 10 Gigabit", _ALL, False),
    "g5.4xlarge": (16, 64, 1, "A10G", "NVIDIA", 24, 0, "Up to 25 Gigabit", _ALL, False),
    "g5.8xlarge": (32, 128, 1, "A10G", "NVIDIA", 24, 1, "25 Gigabit", _ALL, False),
    "g5.12xlarge": (48, 192, 4, "A10G", "NVIDIA", 24, 1, "40 Gigabit", "abc", False),
    "g5.16xlarge": (64, 256, 1, "A10G", "NVIDIA", 24, 1, "25 Gigabit", "abc", False),
    "g5.24xlarge": (96, 384, 4, "A10G", "NVIDIA", 24, 1, "50 Gigabit", "abc", False),
    "g5.48xlarge": (192, 768, 8, "A10G", "NVIDIA", 24, 1, "100 Gigabit", "ab", False),
    "g6.xlarge": (4, 16, 1, "L4", "NVIDIA", 24, 0, "Up to 10 Gigabit", _ALL, False),
    "g6.2xlarge": (8, 32, 1, "L4", "NVIDIA", 24, 0, "Up to 10 Gigabit", _ALL, False),
    "g6.4xlarge": (16, 64, 1, "L4", "NVIDIA", 24, 0, "Up to 25 Gigabit", _ALL, False),
    "g6.8xlarge": (32, 128, 1, "L4", "NVIDIA", 24, 1, "25 Gigabit", "abc", False),
    "g6.12xlarge": (48, 192, 4, "L4", "NVIDIA", 24, 1, "40 Gigabit", "abc", False),
    "g6.16xlarge": (64, 256, 1, "L4", "NVIDIA", 24, 1, "25 Gigabit", "abc", False),
    "g6.24xlarge": (96, 384, 4, "L4", "NVIDIA", 24, 1, "50 Gigabit", "bc", False),
    "g6.48xlarge": (192, 768, 8, "L4", "NVIDIA", 24, 1, "100 Gigabit", "bc", False),
    "g6e.xlarge": (4, 32, 1, "L40S", "NVIDIA", 48, 0, "Up to 20 Gigabit", "abd", False),
    "g6e.2xlarge": (8, 64, 1, "L40S", "NVIDIA", 48, 0, "Up to 20 Gigabit", "abd", False),
    "g6e.4xlarge": (16, 128, 1, "L40S", "NVIDIA", 48, 0, "20 Gigabit", "abd", False),
    "g6e.8xlarge": (32, 256, 1, "L40S", "NVIDIA", 48, 1, "25 Gigabit", "abd", False),
    "g6e.12xlarge": (48, 384, 4, "L40S", "NVIDIA", 48, 1, "100 Gigabit", "ad", False),
    "g6e.16xlarge": (64, 512, 1, "L40S", "NVIDIA", 48, 1, "35 Gigabit", "ad", False),
    "g6e.24xlarge": (96, 768, 4, "L40S", "NVIDIA", 48, 2, "200 Gigabit", "ad", False),
    "g6e.48xlarge": (192, 1536, 8, "L40S", "NVIDIA", 48, 4, "400 Gigabit", "a", False),
    "trn1.2xlarge": (8, 32, 1, "Trainium", "AWS", 32, 0, "Up to 12.5 Gigabit", "ad", True),
    "trn1.32xlarge": (128, 512, 16, "Trainium", "AWS", 32, 8, "800 Gigabit", "ad", True),
    "trn2.48xlarge": (192, 2048, 16, "Trainium2", "AWS", 96, 16, "3200 Gigabit", "c", True),
    "inf2.xlarge": (4, 16, 1, "Inferentia2", "AWS", 32, 0, "Up to 15 Gigabit", _ALL, True),
    "inf2.48xlarge": (192, 768, 12, "Inferentia2", "AWS", 32, 0, "100 Gigabit", "ab", True),
    "m5.large": (2, 8, 0, None, None, 0, 0, "Up to 10 Gigabit", _ALL, False),
    "m5.xlarge": (4, 16, 0, None, None, 0, 0, "Up to 10 Gigabit", _ALL, False),
    "m5.2xlarge": (8, 32, 0, None, None, 0, 0, "Up to 10 Gigabit", _ALL, False),
    "m5.4xlarge": (16, 64, 0, None, None, 0, 0, "Up to 10 Gigabit", _ALL, False),
    "m5.8xlarge": (32, 128, 0, None, None, 0, 0, "10 Gigabit", _ALL, False),
    "m5.12xlarge": (48, 192, 0, None, None, 0, 0, "12 Gigabit", _ALL, False),
    "c5.xlarge": (4, 8, 0, None, None, 0, 0, "Up to 10 Gigabit", _ALL, False),
    "c5.4xlarge": (16, 32, 0, None, None, 0, 0, "Up to 10 Gigabit", _ALL, False),
    "c5n.18xlarge": (72, 192, 0, None, None, 0, 1, "100 Gigabit", _ALL, False),
    "r5.xlarge": (4, 32, 0, None, None, 0, 0, "Up to 10 Gigabit", _ALL, False),
    "t3.medium": (2, 4, 0, None, None, 0, 0, "Up to 5 Gigabit", _ALL, False),
    "t3.large": (2, 8, 0, None, None, 0, 0, "Up to 5 Gigabit", _ALL, False),
}


def spec(instance_type):
    """Normalised facts about a type (accepts the ml. prefix); None if unknown."""
    base = instance_type[3:] if instance_type.startswith("ml.") else instance_type
    t = TYPES.get(base)
    if t is None:
        return None
    vcpu, mem, acc, name, maker, accmem, efa, net, letters, neuron = t
    return {"type": base, "vcpus": vcpu, "memory_gib": mem, "accelerators": acc,
            "accelerator": name, "manufacturer": maker, "accelerator_mem_gib": accmem,
            "efa": efa, "network": net, "az_letters": letters, "neuron": neuron,
            "gpus": acc if (acc and not neuron) else 0}


def offered_in(instance_type, zone):
    s = spec(instance_type)
    return bool(s) and zone[-1:] in s["az_letters"]


def describe(instance_type):
    """EC2 DescribeInstanceTypes item (wire names) for a catalogue entry."""
    s = spec(instance_type)
    out = {
        "instanceType": s["type"], "currentGeneration": True, "freeTierEligible": False,
        "supportedUsageClasses": ["on-demand", "spot"] if s["accelerators"] < 8 else ["on-demand", "capacity-block"],
        "supportedRootDeviceTypes": ["ebs"], "supportedVirtualizationTypes": ["hvm"],
        "bareMetal": False, "hypervisor": "nitro",
        "processorInfo": {"supportedArchitectures": ["x86_64"], "sustainedClockSpeedInGhz": 3.1,
                          "manufacturer": "Intel" if s["type"][0] in "mct" else "AMD"},
        "vCpuInfo": {"defaultVCpus": s["vcpus"], "defaultCores": max(1, s["vcpus"] // 2),
                     "defaultThreadsPerCore": 2 if s["vcpus"] > 1 else 1},
        "memoryInfo": {"sizeInMiB": s["memory_gib"] * 1024},
        "instanceStorageSupported": s["accelerators"] >= 4,
        "ebsInfo": {"ebsOptimizedSupport": "default", "encryptionSupport": "supported",
                    "nvmeSupport": "required"},
        "networkInfo": {"networkPerformance": s["network"],
                        "maximumNetworkInterfaces": 64 if s["efa"] >= 8 else 15,
                        "maximumNetworkCards": max(1, s["efa"]),
                        "defaultNetworkCardIndex": 0,
                        "ipv4AddressesPerInterface": 50, "ipv6AddressesPerInterface": 50,
                        "ipv6Supported": True, "enaSupport": "required",
                        "efaSupported": s["efa"] > 0,
                        "efaInfo": {"maximumEfaInterfaces": s["efa"]} if s["efa"] else None,
                        "encryptionInTransitSupported": True},
        "placementGroupInfo": {"supportedStrategies": ["cluster", "partition", "spread"]},
        "hibernationSupported": False, "burstablePerformanceSupported": s["type"].startswith("t3"),
        "dedicatedHostsSupported": True, "autoRecoverySupported": s["accelerators"] == 0,
        "supportedBootModes": ["legacy-bios", "uefi"],
    }
    if s["gpus"]:
        out["gpuInfo"] = {"gpus": [{"name": s["accelerator"], "manufacturer": s["manufacturer"],
                                    "count": s["gpus"],
                                    "memoryInfo": {"sizeInMiB": s["accelerator_mem_gib"] * 1024}}],
                          "totalGpuMemoryInMiB": s["gpus"] * s["accelerator_mem_gib"] * 1024}
    if s["neuron"]:
        out["neuronInfo"] = {"neuronDevices": [{"count": s["accelerators"], "name": s["accelerator"],
                                                "coreInfo": {"count": 2, "version": 2},
                                                "memoryInfo": {"sizeInMiB": s["accelerator_mem_gib"] * 1024}}],
                             "totalNeuronDeviceMemoryInMiB": s["accelerators"] * s["accelerator_mem_gib"] * 1024}
    return out
