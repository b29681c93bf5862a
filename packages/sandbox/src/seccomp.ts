// The seccomp filter every sandboxed process runs under (bwrap --seccomp FD): a classic BPF program, written
// by hand because no maintained npm library generates one. It denies, with EPERM, the system calls no SUT,
// rubric or agent needs and that widen the kernel surface an escape would use: the kernel keyring,
// ptrace and cross-process memory access, mounting and pivoting, loading kernel modules or a new kernel,
// eBPF, userfaultfd, perf events, swap, reboot, the clock and process accounting. Everything else is
// allowed. A system call made through another architecture's ABI (32-bit x86 on x86_64) kills the process,
// and any x32 call is denied, so that the list cannot be bypassed by a different numbering.
//
// Layout of one instruction (struct sock_filter, native endian): u16 code, u8 jt, u8 jf, u32 k.
// The data examined is struct seccomp_data: int nr at offset 0, u32 arch at offset 4.

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO_EPERM = 0x00050000 | 1;
const X32_SYSCALL_BIT = 0x40000000;

/** The denied system calls, by name: what docs/containment.md lists. */
export const DENIED_SYSCALLS = [
  "keyctl",
  "add_key",
  "request_key",
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "mount",
  "umount2",
  "pivot_root",
  "open_tree",
  "move_mount",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "init_module",
  "finit_module",
  "delete_module",
  "kexec_load",
  "kexec_file_load",
  "bpf",
  "userfaultfd",
  "perf_event_open",
  "swapon",
  "swapoff",
  "reboot",
  "settimeofday",
  "clock_settime",
  "clock_adjtime",
  "adjtimex",
  "acct",
] as const;
type Denied = (typeof DENIED_SYSCALLS)[number];

// Numbers from the kernel's syscall tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h).
const NUMBERS: Record<"x64" | "arm64", Record<Denied, number>> = {
  x64: {
    keyctl: 250,
    add_key: 248,
    request_key: 249,
    ptrace: 101,
    process_vm_readv: 310,
    process_vm_writev: 311,
    mount: 165,
    umount2: 166,
    pivot_root: 155,
    open_tree: 428,
    move_mount: 429,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    mount_setattr: 442,
    init_module: 175,
    finit_module: 313,
    delete_module: 176,
    kexec_load: 246,
    kexec_file_load: 320,
    bpf: 321,
    userfaultfd: 323,
    perf_event_open: 298,
    swapon: 167,
    swapoff: 168,
    reboot: 169,
    settimeofday: 164,
    clock_settime: 227,
    clock_adjtime: 305,
    adjtimex: 159,
    acct: 163,
  },
  arm64: {
    keyctl: 219,
    add_key: 217,
    request_key: 218,
    ptrace: 117,
    process_vm_readv: 270,
    process_vm_writev: 271,
    mount: 40,
    umount2: 39,
    pivot_root: 41,
    open_tree: 428,
    move_mount: 429,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    mount_setattr: 442,
    init_module: 105,
    finit_module: 273,
    delete_module: 106,
    kexec_load: 104,
    kexec_file_load: 294,
    bpf: 280,
    userfaultfd: 282,
    perf_event_open: 241,
    swapon: 224,
    swapoff: 225,
    reboot: 142,
    settimeofday: 170,
    clock_settime: 112,
    clock_adjtime: 266,
    adjtimex: 171,
    acct: 89,
  },
};
const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;

type Instruction = readonly [code: number, jt: number, jf: number, k: number];

/** The filter for this machine's architecture, or null where evalgate has no syscall table for it. */
export function seccompFilter(arch: string = process.arch): Buffer | null {
  if (arch !== "x64" && arch !== "arm64") return null;
  const numbers = DENIED_SYSCALLS.map((name) => NUMBERS[arch][name]);
  // Jump offsets count instructions after the current one; the last two are DENY then ALLOW.
  const program: Instruction[] = [
    [BPF_LD_W_ABS, 0, 0, 4],
    [BPF_JEQ_K, 1, 0, AUDIT_ARCH[arch]],
    [BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS],
    [BPF_LD_W_ABS, 0, 0, 0],
  ];
  const checks = numbers.length + (arch === "x64" ? 1 : 0);
  if (arch === "x64") program.push([BPF_JGE_K, checks, 0, X32_SYSCALL_BIT]);
  numbers.forEach((nr, index) => program.push([BPF_JEQ_K, numbers.length - index, 0, nr]));
  program.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW], [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO_EPERM]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], index) => {
    bytes.writeUInt16LE(code, index * 8);
    bytes.writeUInt8(jt, index * 8 + 2);
    bytes.writeUInt8(jf, index * 8 + 3);
    bytes.writeUInt32LE(k, index * 8 + 4);
  });
  return bytes;
}
