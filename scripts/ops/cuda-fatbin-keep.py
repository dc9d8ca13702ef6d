#!/usr/bin/env python3
"""Keep one GPU generation's kernels in a CUDA library, zeroing the others' (benchmarks/README.md).

    python3 scripts/ops/cuda-fatbin-keep.py libonnxruntime_providers_cuda.so out.so [90]

ONNX Runtime's CUDA provider (230 MB) holds cubins for sm_75, 80, 86, 89, 90 and 120. A lent machine that
takes 64 MiB a call got a copy whose fatbinary entries for other generations than the one named (default
sm_90, the H100 and H200) are zeroed in place: the file keeps its size and layout, and compresses to 38 MB
with xz. A fatbinary that holds no cubin for that generation is left whole. The copy only runs on that
generation; an installation uses the whole library (models/README.md).

Layout read here (the documented-by-use fatbinary format): a header (magic 0xBA55ED50, version 1, header
size 16, size of the entries), then entries of kind 1 (PTX) or 2 (ELF cubin), each a header of at least
64 bytes holding its payload size at byte 8 and its SM generation at byte 28, then the payload.
"""
import collections
import struct
import sys

MAGIC = struct.pack('<I', 0xBA55ED50)


def main(src: str, dst: str | None, keep: int) -> None:
    data = bytearray(open(src, 'rb').read())
    count, size = collections.Counter(), collections.Counter()
    pos, zeroed = 0, 0
    while (i := data.find(MAGIC, pos)) >= 0:
        _, version, header, total = struct.unpack_from('<IHHQ', data, i)
        if version != 1 or header != 16 or total > len(data):
            pos = i + 4
            continue
        entries, p, end = [], i + header, i + header + total
        while p < end:
            kind, _, eh, payload = struct.unpack_from('<HHIQ', data, p)
            if not 64 <= eh <= 4096:
                break
            entries.append((p, kind, eh, payload, struct.unpack_from('<I', data, p + 28)[0]))
            p += eh + payload
        has_keep = any(k == 2 and sm == keep for (_, k, _, _, sm) in entries)
        for (p, kind, eh, payload, sm) in entries:
            count[(kind, sm)] += 1
            size[(kind, sm)] += payload
            if has_keep and not (kind == 2 and sm == keep):
                data[p + eh:p + eh + payload] = bytes(payload)
                zeroed += payload
        pos = max(end, i + 4)
    for (kind, sm) in sorted(count):
        print(f"{'cubin' if kind == 2 else 'ptx'} sm_{sm}: {count[(kind, sm)]} entries, {size[(kind, sm)] / 2**20:.1f} MiB")
    print(f'zeroed {zeroed / 2**20:.1f} MiB, kept sm_{keep}')
    if dst:
        open(dst, 'wb').write(data)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, int(sys.argv[3]) if len(sys.argv) > 3 else 90)
