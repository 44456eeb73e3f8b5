class _IPAddressBase:
    def _prefix_from_prefix_string(cls, prefixlen_str):
        prefixlen = int(prefixlen_str)
        return prefixlen

    def _split_addr_prefix(cls, address):
        addr = address.split('/')
        address = addr

        # Constructing from a tuple (addr, [mask])
        return address


class _BaseAddress:
    def __int__(self):
        return self._ip

    def __str__(self):
        return self._string_from_ip_int(self._ip)


class _BaseNetwork(_IPAddressBase):
    def __str__(self):
        return '%s/%d' % (self.network_address, self.prefixlen)

    @property
    def prefixlen(self):
        return self._prefixlen


class _BaseV4:
    # There are only a handful of valid v4 netmasks, so we cache them all
    # when constructed (see _make_netmask()).
    _netmask_cache = {}

    def _make_netmask(cls, arg):
        # Check for a netmask in prefix length form
        prefixlen = cls._prefix_from_prefix_string(arg)
        cls._netmask_cache[arg] = IPv4Address(prefixlen), prefixlen
        return cls._netmask_cache[arg]

    def _ip_int_from_string(cls, ip_str):
        return int.from_bytes(map(cls._parse_octet, ip_str.split('.')))

    def _parse_octet(cls, octet_str):
        # Convert to integer (we know digits are legal)
        return int(octet_str)

    def _string_from_ip_int(cls, ip_int):
        return '.'.join(map(str, ip_int.to_bytes(4)))


class IPv4Address(_BaseV4, _BaseAddress):
    def __init__(self, address):
        # Efficient constructor from integer.
        if isinstance(address, int):
            self._ip = address
            return

        self._ip = self._ip_int_from_string(address)


class IPv4Network(_BaseV4, _BaseNetwork):
    def __init__(self, strict=True):
        addr, mask = self._split_addr_prefix(address)

        self.network_address = IPv4Address(addr)
        self.netmask, self._prefixlen = self._make_netmask(mask)
        packed = int(self.network_address)
        if packed & int(self.netmask) != packed:
            if strict:  # autodd: freeze (the check from ipnets.py:1517 that raises the failure)
                raise ValueError('%s has host bits set' % self)
            else:
                self.network_address = IPv4Address(packed &
                                                   int(self.netmask))


address = '10.20.10.1/24'
IPv4Network()
