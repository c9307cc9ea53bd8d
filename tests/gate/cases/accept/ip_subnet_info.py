"""Subnet arithmetic for IPv4 and IPv6 networks."""
import ipaddress

NAME = "ip_subnet_info"
DESCRIPTION = "Network address, broadcast, netmask, host count and membership test for a CIDR block."
PARAMS = {
    "type": "object",
    "properties": {
        "cidr": {"type": "string", "description": "e.g. 192.168.1.0/24"},
        "contains": {"type": "string", "description": "optional address to test"},
    },
    "required": ["cidr"],
}
EXAMPLES = [
    {
        "params": {"cidr": "192.168.1.77/26", "contains": "192.168.1.100"},
        "result": {
            "network": "192.168.1.64/26", "netmask": "255.255.255.192", "broadcast": "192.168.1.127",
            "first_host": "192.168.1.65", "last_host": "192.168.1.126", "usable_hosts": 62,
            "version": 4, "private": True, "contains": True,
        },
    },
    {"params": {"cidr": "10.0.0.300/8"}, "result": {"error": "'10.0.0.300/8' does not appear to be an IPv4 or IPv6 network"}},
]


def run(params):
    try:
        network = ipaddress.ip_network(params["cidr"], strict=False)
    except ValueError as exc:
        return {"error": str(exc)}
    usable = network.num_addresses - 2 if network.version == 4 and network.prefixlen < 31 else network.num_addresses
    result = {
        "network": str(network),
        "netmask": str(network.netmask),
        "broadcast": str(network.broadcast_address),
        "first_host": str(network.network_address + (1 if usable != network.num_addresses else 0)),
        "last_host": str(network.broadcast_address - (1 if usable != network.num_addresses else 0)),
        "usable_hosts": usable,
        "version": network.version,
        "private": network.is_private,
    }
    if "contains" in params:
        try:
            result["contains"] = ipaddress.ip_address(params["contains"]) in network
        except ValueError:
            result["contains"] = False
    return result
