# gdb -p PID -batch -x docs/tools/cooperative-pool.py: a test process's Swift cooperative queues (width, running,
# queued jobs), libdispatch's root queues (free threads) and the main queue; docs/performance.md, "The cooperative pool".
# Offsets of swift-corelibs-libdispatch 6.3.1 on x86_64 (dispatch_lane_s, dispatch_queue_global_s): check them on another toolchain.
import gdb

def u64(addr):
    return int(gdb.parse_and_eval("*(unsigned long long *)%d" % addr)) & 0xffffffffffffffff

def u32(addr):
    return int(gdb.parse_and_eval("*(unsigned int *)%d" % addr)) & 0xffffffff

def i32(addr):
    return int(gdb.parse_and_eval("*(int *)%d" % addr))

def cstr(addr):
    if addr == 0:
        return "(null)"
    try:
        return gdb.parse_and_eval("(const char *)%d" % addr).string()
    except Exception as e:
        return "?"

def state(s):
    width_field = (s >> 41) & 0x1fff
    return ("state=%#018x in_use=%d enqueued=%d dirty=%d in_barrier=%d pending_barrier=%d owner=%d suspend=%#x"
            % (s, width_field, (s >> 31) & 1, (s >> 39) & 1, (s >> 54) & 1, (s >> 40) & 1, s & 0x3fffffff,
               s >> 55))

def lane(name, q):
    s = u64(q + 56)
    width = u32(q + 80) & 0xffff
    in_use = ((s >> 41) & 0x1fff) - (0x1000 - width) if width else -1
    print("%s %#x label=%r width=%d running=%d tail=%#x head=%#x target=%#x\n    %s"
          % (name, q, cstr(u64(q + 72)), width, in_use, u64(q + 48), u64(q + 104), u64(q + 24), state(s)))

cache = int(gdb.parse_and_eval("(unsigned long long)&'_ZL16globalQueueCache'"))
for i in range(34):
    q = u64(cache + 8 * i)
    if q:
        lane("swift global queue [priority %#x]" % i, q)

roots = int(gdb.parse_and_eval("(unsigned long long)&_dispatch_root_queues"))
for i in range(12):
    q = roots + 128 * i
    print("root %2d %#x label=%r pool_size=%d pending=%d tail=%#x head=%#x"
          % (i, q, cstr(u64(q + 72)), i32(q + 100), i32(q + 112), u64(q + 48), u64(q + 104)))

main = int(gdb.parse_and_eval("(unsigned long long)&_dispatch_main_q"))
lane("main queue", main)
