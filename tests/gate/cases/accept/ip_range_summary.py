"""Collapses IP addresses and ranges into the smallest list of CIDR networks."""
import ipaddress

NAME = "ip_range_summary"
DESCRIPTION = "Collapses a list of IPv4/IPv6 addresses, CIDR networks and first-last ranges into the fewest CIDR blocks, with address counts."
PARAMS = {
    "type": "object",
    "properties": {
        "entries": {
            "type": "array",
            "items": {"type": "string"},
            "description": "'10.0.0.1', '10.0.0.0/30' or '10.0.0.5-10.0.0.9'",
        }
    },
    "required": ["entries"],
}
EXAMPLES = [
    {
        "params": {"entries": ["10.0.0.0/30", "10.0.0.4", "10.0.0.5-10.0.0.7", "192.168.1.10", "2001:db8::/127", "2001:db8::2"]},
        "result": {
            "networks": ["10.0.0.0/29", "192.168.1.10/32", "2001:db8::/127", "2001:db8::2/128"],
            "addresses": 12,
            "invalid": [],
        },
    },
    {
        "params": {"entries": ["10.0.0.300", "10.0.0.9-10.0.0.1", "8.8.8.8"]},
        "result": {"networks": ["8.8.8.8/32"], "addresses": 1, "invalid": ["10.0.0.300", "10.0.0.9-10.0.0.1"]},
    },
]


def networks_of(entry: str) -> list:
    text = entry.strip()
    if "-" in text:
        first, last = (ipaddress.ip_address(part.strip()) for part in text.split("-", 1))
        return list(ipaddress.summarize_address_range(first, last))
    return [ipaddress.ip_network(text, strict=False)]


def run(params):
    by_version: dict[int, list] = {4: [], 6: []}
    invalid: list[str] = []
    for entry in params["entries"]:
        try:
            for network in networks_of(entry):
                by_version[network.version].append(network)
        except (ValueError, TypeError):
            invalid.append(entry)
    collapsed = [net for version in (4, 6) for net in ipaddress.collapse_addresses(by_version[version])]
    return {
        "networks": [str(net) for net in collapsed],
        "addresses": sum(net.num_addresses for net in collapsed),
        "invalid": invalid,
    }
