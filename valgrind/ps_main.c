/* ps_main.c - the pagesleuth Valgrind tool's entry: options, instrumentation, client
 * requests, the end of the run. Working sets are in ws.c, hot pages in hot.c, heap blocks
 * and objects behind the ps_heap_* hooks (ps_tool.h).
 *
 * Instrumentation, per superblock:
 *   - the instruction counter ps_instr_count is updated inline (load, add, store) before
 *     every side exit and at the end, never per instruction;
 *   - each helper gets, as a constant, the number of instructions since that last update,
 *     so it knows the exact instruction number of its access (the time base);
 *   - one code-page helper per run of instructions on the same page (usually one per
 *     superblock), one data helper per load/store (a guarded access only when its guard
 *     holds; a read-modify-write counts as a load and a store, as Lackey's M does), each
 *     called only when the inline checks cannot account for the access themselves (the
 *     last page of the epoch, the last object's range: see add_data).
 * The set of data accesses is Lackey's (--trace-mem=yes), so both routes see the same.
 * It also ends the records at an exec (the core calls no fini then; see pre_syscall). */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"
#include "valgrind.h"
#include "pagesleuth.h"
#include "ps_tool.h"
#include "ws_core.h"

static const HChar *clo_out = "pagesleuth.out.%p";
/* The pid and program `pagesleuth valgrind` ran: with --trace-children=yes, every other
 * process (and every program exec'd) is traced on its own and gets its own record file (see
 * out_path). */
static Long clo_main_pid = 0;
static const HChar *clo_main_exe = NULL;

/* Not in the tool API, but in the libcoregrind the tool links statically (declared in the
 * core's pub_core_options.h). */
extern Bool VG_(clo_trace_children);
static Long clo_page_size = 4096;
static Long clo_every = 100000, clo_tau = 0;

static const HChar *base_name(const HChar *path)
{
	const HChar *slash = VG_(strrchr)(path, '/');
	return slash ? slash + 1 : path;
}

/* The record file of this program image: --out with %p expanded. With --trace-children=yes
 * and a name without %p, every process of the tree and every program exec'd would write the
 * same file, each renaming over the others: the program `pagesleuth valgrind` started
 * (--main-pid, --main-exe) keeps the name; every other image writes NAME with its pid before
 * the extension (out.rec -> out.1234.rec; out.1234-2.rec for the next program that pid
 * execs: an existing file is never replaced) and says so. */
static HChar *out_path(void)
{
	HChar *path = VG_(expand_file_name)("--out", clo_out);
	Int pid = VG_(getpid)();
	Bool main_image = pid == clo_main_pid && clo_main_exe &&
			  VG_(strcmp)(base_name(VG_(args_the_exename)), base_name(clo_main_exe)) == 0;
	if (!VG_(clo_trace_children) || VG_(strstr)(clo_out, "%p") || main_image)
		return path;
	const HChar *base = base_name(path), *dot = VG_(strrchr)(base, '.');
	if (!dot || dot == base)
		dot = path + VG_(strlen)(path); /* no extension: append */
	SizeT n = VG_(strlen)(path) + 40;
	HChar *own = VG_(malloc)("ps.out.child", n);
	struct vg_stat st;
	for (Int gen = 1; gen < 1000; gen++) {
		/* (Valgrind's printf has no %.*s: the stem is copied by hand) */
		SizeT stem = (SizeT)(dot - path);
		VG_(memcpy)(own, path, stem);
		if (gen == 1)
			VG_(snprintf)(own + stem, n - stem, ".%d%s", pid, dot);
		else
			VG_(snprintf)(own + stem, n - stem, ".%d-%d%s", pid, gen, dot);
		if (sr_isError(VG_(stat)(own, &st)))
			break;
	}
	if (VG_(clo_verbosity) > 0) /* -q: only errors */
		VG_(umsg)("pagesleuth: traced process %d (%s): its records go to %s\n", pid,
			  base_name(VG_(args_the_exename)), own);
	VG_(free)(path);
	return own;
}

/* ---- options ------------------------------------------------------------------------------ */

static Bool process_option(const HChar *arg)
{
	Long hot = 0, window = 0;
	if VG_STR_CLO(arg, "--out", clo_out) {
	} else if VG_BINT_CLO(arg, "--main-pid", clo_main_pid, 1, 1LL << 22) {
	} else if VG_STR_CLO(arg, "--main-exe", clo_main_exe) {
	} else if VG_BINT_CLO(arg, "--ws-every", clo_every, 1, 1000000000000000LL) {
	} else if VG_BINT_CLO(arg, "--ws-tau", clo_tau, 1, 1000000000000000LL) {
	} else if VG_BINT_CLO(arg, "--page-size", clo_page_size, 512, 1073741824) {
		if (clo_page_size & (clo_page_size - 1))
			VG_(fmsg_bad_option)(arg, "the page size must be a power of two\n");
	} else if VG_BINT_CLO(arg, "--hot", hot, 0, 1000000) {
		ps_clo_hot = (UInt)hot;
	} else if VG_BOOL_CLO(arg, "--peaks", ps_clo_peaks) {
	} else if VG_XACT_CLO(arg, "--peak-detector=prominence", ps_clo_peak_paper, False) {
	} else if VG_XACT_CLO(arg, "--peak-detector=paper", ps_clo_peak_paper, True) {
	} else if VG_BINT_CLO(arg, "--peak-min", window, 0, 100) {
		ps_clo_peak_min = (UInt)window;
	} else if VG_BINT_CLO(arg, "--peak-max", window, 1, 100000) {
		ps_clo_peak_max = (UInt)window;
	} else if VG_BINT_CLO(arg, "--peak-window", window, 1, 100000) {
		ps_clo_peak_window = (UInt)window;
	} else if VG_DBL_CLO(arg, "--peak-gain", ps_clo_peak_gain) {
		if (!(ps_clo_peak_gain > 0.0 && ps_clo_peak_gain < 1e9))
			VG_(fmsg_bad_option)(arg, "the peak gain must be a number above 0\n");
	} else if VG_DBL_CLO(arg, "--peak-adapt", ps_clo_peak_adapt) {
		if (!(ps_clo_peak_adapt >= 0.0 && ps_clo_peak_adapt <= 1.0))
			VG_(fmsg_bad_option)(arg, "the peak adaptation rate must be between 0 and 1\n");
	} else {
		return ps_heap_process_cmd_line_option(arg);
	}
	return True;
}

static void print_usage(void)
{
	VG_(printf)(
"    --out=FILE              record file [pagesleuth.out.%%p] (%%p = pid)\n"
"    --ws-every=T            sample the working set every T instructions [100000]\n"
"    --ws-tau=TAU            working set = pages touched in the last TAU instructions [T]\n"
"    --page-size=N           page size in bytes, a power of two >= 512 [4096]\n"
"    --hot=N                 report the N most accessed code and data pages [0 = off]\n"
"    --peaks=yes|no          detect working-set peaks, with call stacks [yes]\n"
"    --peak-detector=prominence|paper  peaks ranked by prominence, or the paper's\n"
"                            online detector (moving average and variance) [prominence]\n"
"    --peak-min=PCT          prominence: at least PCT%% of the highest sample [10]\n"
"    --peak-max=N            prominence: at most N peaks of each kind [10]\n"
"    --peak-window=W         paper: samples in the moving average and variance [30]\n"
"    --peak-gain=G           paper: threshold gain, higher finds fewer peaks [2]\n"
"    --peak-adapt=A          paper: weight of a peak sample fed back to the averages,\n"
"                            0-1 [0]\n");
	ps_heap_print_usage();
}

static void print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* ---- instrumentation ---------------------------------------------------------------------- */

/* Addresses, page numbers, object ranges and pointers are guest words (the tool needs
 * guest = host): 64 bits on amd64, arm64, ppc64le, 32 on arm and ppc32. Counters and the
 * instruction clock are 64-bit everywhere. Memory is the host's byte order. */
#if VG_WORDSIZE == 8
#define Ity_W         Ity_I64
#define Iop_ShrW      Iop_Shr64
#define Iop_AddW      Iop_Add64
#define Iop_SubW      Iop_Sub64
#define Iop_CmpNEW    Iop_CmpNE64
#define Iop_CmpLEWU   Iop_CmpLE64U
#define IRConst_UW(x) IRConst_U64(x)
#else
#define Ity_W         Ity_I32
#define Iop_ShrW      Iop_Shr32
#define Iop_AddW      Iop_Add32
#define Iop_SubW      Iop_Sub32
#define Iop_CmpNEW    Iop_CmpNE32
#define Iop_CmpLEWU   Iop_CmpLE32U
#define IRConst_UW(x) IRConst_U32((UInt)(x))
#endif
#if defined(VG_BIGENDIAN)
#define PS_END Iend_BE
#else
#define PS_END Iend_LE
#endif

static void add_counter(IRSB *sb, UInt n)
{
	IRTemp t1 = newIRTemp(sb->tyenv, Ity_I64), t2 = newIRTemp(sb->tyenv, Ity_I64);
	IRExpr *where = mkIRExpr_HWord((HWord)&ps_instr_count);
	addStmtToIRSB(sb, IRStmt_WrTmp(t1, IRExpr_Load(PS_END, Ity_I64, where)));
	addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
							IRExpr_Const(IRConst_U64(n)))));
	addStmtToIRSB(sb, IRStmt_Store(PS_END, where, IRExpr_RdTmp(t2)));
}

/* IR helpers: each value in its own temporary (the IR must stay flat). */
static IRExpr *tmp(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return IRExpr_RdTmp(t);
}

static IRExpr *load64(IRSB *sb, const void *where)
{
	return tmp(sb, Ity_I64, IRExpr_Load(PS_END, Ity_I64, mkIRExpr_HWord((HWord)where)));
}

/* a guest word (an address, a page number, a pointer) */
static IRExpr *loadW(IRSB *sb, const void *where)
{
	return tmp(sb, Ity_W, IRExpr_Load(PS_END, Ity_W, mkIRExpr_HWord((HWord)where)));
}

/* a <u b of two 64-bit atoms (32-bit hosts: their instruction selectors have no 64-bit
 * ordered compare, so it is built of 32-bit ones) */
static IRExpr *lt64u(IRSB *sb, IRExpr *a, IRExpr *b)
{
#if VG_WORDSIZE == 8
	return tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, a, b));
#else
	IRExpr *ah = tmp(sb, Ity_I32, IRExpr_Unop(Iop_64HIto32, a));
	IRExpr *bh = tmp(sb, Ity_I32, IRExpr_Unop(Iop_64HIto32, b));
	IRExpr *al = tmp(sb, Ity_I32, IRExpr_Unop(Iop_64to32, a));
	IRExpr *bl = tmp(sb, Ity_I32, IRExpr_Unop(Iop_64to32, b));
	IRExpr *hlt = tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT32U, ah, bh));
	IRExpr *heq = tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ32, ah, bh));
	IRExpr *llt = tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT32U, al, bl));
	IRExpr *both = tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, heq, llt));
	return tmp(sb, Ity_I1, IRExpr_Binop(Iop_Or1, hlt, both));
#endif
}

/* cond ? amount : 0 as a 64-bit value, amount a constant (32-bit hosts: a 64-bit ITE is
 * not selectable there, so the halves are chosen apart; amount_lo may be patched later). */
static IRExpr *ite64(IRSB *sb, IRExpr *cond, IRExpr *amount_lo, UInt amount_hi)
{
#if VG_WORDSIZE == 8
	(void)amount_hi;
	return tmp(sb, Ity_I64, IRExpr_ITE(cond, amount_lo, IRExpr_Const(IRConst_U64(0))));
#else
	IRExpr *lo = tmp(sb, Ity_I32, IRExpr_ITE(cond, amount_lo, IRExpr_Const(IRConst_U32(0))));
	IRExpr *hi = amount_hi ? tmp(sb, Ity_I32, IRExpr_ITE(cond, IRExpr_Const(IRConst_U32(amount_hi)),
							     IRExpr_Const(IRConst_U32(0))))
			       : IRExpr_Const(IRConst_U32(0));
	return tmp(sb, Ity_I64, IRExpr_Binop(Iop_32HLto64, hi, lo));
#endif
}

/* *(*counter_ptr) += amount when cond holds (an I1 atom): the fast path's hot count. */
static void add_count(IRSB *sb, ULong *const *counter_ptr, IRExpr *cond, IRExpr *amount)
{
	IRExpr *ptr = loadW(sb, counter_ptr);
	IRExpr *v = tmp(sb, Ity_I64, IRExpr_Load(PS_END, Ity_I64, ptr));
	IRExpr *inc = ite64(sb, cond, amount, 0);
	IRExpr *sum = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, v, inc));
	addStmtToIRSB(sb, IRStmt_Store(PS_END, ptr, sum));
}

/* *where += amount when cond holds (an I1 atom): the objects fast path's pending counts. */
static void add_pending(IRSB *sb, ULong *where, IRExpr *cond, ULong amount)
{
	IRExpr *v = load64(sb, where);
#if VG_WORDSIZE == 8
	IRExpr *inc = ite64(sb, cond, IRExpr_Const(IRConst_U64(amount)), 0);
#else
	IRExpr *inc = ite64(sb, cond, IRExpr_Const(IRConst_U32((UInt)amount)), (UInt)(amount >> 32));
#endif
	IRExpr *sum = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, v, inc));
	addStmtToIRSB(sb, IRStmt_Store(PS_END, mkIRExpr_HWord((HWord)where), sum));
}

/* One data access. The helper is called only when the access is not to ps_last_data_page,
 * spans two pages, or (objects counted) its first byte is outside the range of the last
 * object the helper saw ([ps_obj_lo, ps_obj_lo + ps_obj_len)); otherwise the generated
 * code counts it itself: the page's hot count, the object's pending loads or stores. */
static void add_data(IRSB *sb, IRExpr *addr, Int size, Bool store, IRExpr *guard, UInt delta,
		     UInt left, Addr ip)
{
	if (size > 0xffff)
		size = 0xffff;
	UWord arg = (UWord)size | (store ? 1ul << 16 : 0) | (UWord)left << PS_ARG_LEFT_SHIFT;
#if VG_WORDSIZE == 8
	arg |= (UWord)delta << 32;
#endif
	IRExpr *page = tmp(sb, Ity_W, IRExpr_Binop(Iop_ShrW, addr,
						   IRExpr_Const(IRConst_U8(ps_clo_page_shift))));
	IRExpr *miss = tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNEW, page,
						    loadW(sb, &ps_last_data_page)));
	if (size > 1) {
		IRExpr *end = tmp(sb, Ity_W, IRExpr_Binop(Iop_AddW, addr,
					IRExpr_Const(IRConst_UW((ULong)size - 1))));
		IRExpr *endpage = tmp(sb, Ity_W, IRExpr_Binop(Iop_ShrW, end,
					IRExpr_Const(IRConst_U8(ps_clo_page_shift))));
		IRExpr *cross = tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNEW, endpage, page));
		miss = tmp(sb, Ity_I1, IRExpr_Binop(Iop_Or1, miss, cross));
	}
	if (ps_obj_enabled) {
		IRExpr *off = tmp(sb, Ity_W, IRExpr_Binop(Iop_SubW, addr, loadW(sb, &ps_obj_lo)));
		IRExpr *out = tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLEWU, loadW(sb, &ps_obj_len), off));
		miss = tmp(sb, Ity_I1, IRExpr_Binop(Iop_Or1, miss, out));
	}
	IRExpr *call = guard ? tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, miss, guard)) : miss;
	if (ps_clo_hot || ps_obj_enabled) {
		IRExpr *skip = tmp(sb, Ity_I1, IRExpr_Unop(Iop_Not1, miss));
		if (guard)
			skip = tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, skip, guard));
		if (ps_clo_hot)
			add_pending(sb, &ps_data_hot_pend, skip, 1);
		if (ps_obj_enabled)
			add_pending(sb, &ps_obj_pend[store ? 1 : 0], skip,
				    1ull << PS_OBJ_PEND_SHIFT | (ULong)size);
	}
	IRDirty *di;
#if VG_WORDSIZE == 8
	if (ps_clo_hot)
		di = unsafeIRDirty_0_N(3, "ps_h_data_hot", VG_(fnptr_to_fnentry)(ps_h_data_hot),
				       mkIRExprVec_3(addr, mkIRExpr_HWord(arg), mkIRExpr_HWord(ip)));
	else
		di = unsafeIRDirty_0_N(2, "ps_h_data", VG_(fnptr_to_fnentry)(ps_h_data),
				       mkIRExprVec_2(addr, mkIRExpr_HWord(arg)));
#else
	if (ps_clo_hot)
		di = unsafeIRDirty_0_N(0, "ps_h_data_hot", VG_(fnptr_to_fnentry)(ps_h_data_hot),
				       mkIRExprVec_4(addr, mkIRExpr_HWord(arg), mkIRExpr_HWord(ip),
						     mkIRExpr_HWord(delta)));
	else
		di = unsafeIRDirty_0_N(3, "ps_h_data", VG_(fnptr_to_fnentry)(ps_h_data),
				       mkIRExprVec_3(addr, mkIRExpr_HWord(arg), mkIRExpr_HWord(delta)));
#endif
	di->guard = call;
	addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* The start of a run of instructions on one code page. The helper is called when the page
 * is not ps_last_code_page or, at the superblock's first run, when the superblock may end
 * after ps_epoch_end. *arg_const / *count_const are completed when the run ends. */
static void add_code(IRSB *sb, Addr ip, Bool first_run, UInt sb_len, IRConst **arg_const,
		     IRConst **delta_const, IRConst **count_const)
{
	UWord page = ip >> ps_clo_page_shift;
	IRExpr *miss = tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNEW, loadW(sb, &ps_last_code_page),
						    IRExpr_Const(IRConst_UW(page))));
	if (first_run) {
		/* the counter is up to date at a superblock's start */
		IRExpr *end = tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, load64(sb, &ps_instr_count),
							    IRExpr_Const(IRConst_U64(sb_len))));
		IRExpr *late = lt64u(sb, load64(sb, &ps_epoch_end), end);
		miss = tmp(sb, Ity_I1, IRExpr_Binop(Iop_Or1, miss, late));
	}
	*count_const = NULL;
	if (ps_clo_hot) {
		IRExpr *skip = tmp(sb, Ity_I1, IRExpr_Unop(Iop_Not1, miss));
		IRExpr *n = IRExpr_Const(IRConst_UW(0)); /* the run's length, patched */
		*count_const = n->Iex.Const.con;
		add_count(sb, &ps_last_code_count, skip, n);
	}
	IRExpr *arg = mkIRExpr_HWord(0);
	*arg_const = arg->Iex.Const.con;
#if VG_WORDSIZE == 8
	*delta_const = NULL;
	IRDirty *di = unsafeIRDirty_0_N(2, "ps_h_code", VG_(fnptr_to_fnentry)(ps_h_code),
					mkIRExprVec_2(mkIRExpr_HWord(ip), arg));
#else
	IRExpr *dl = mkIRExpr_HWord(0);
	*delta_const = dl->Iex.Const.con;
	IRDirty *di = unsafeIRDirty_0_N(3, "ps_h_code", VG_(fnptr_to_fnentry)(ps_h_code),
					mkIRExprVec_3(mkIRExpr_HWord(ip), arg, dl));
#endif
	di->guard = miss;
	addStmtToIRSB(sb, IRStmt_Dirty(di));
}

static IRSB *instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gWordTy,
			IRType hWordTy)
{
	(void)closure; (void)layout; (void)vge; (void)archinfo;
	if (gWordTy != hWordTy)
		VG_(tool_panic)((HChar *)"pagesleuth: host/guest word size mismatch");
	IRSB *out = deepCopyIRSBExceptStmts(in);
	IRTypeEnv *tyenv = in->tyenv;
	Int i = 0;
	for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(out, in->stmts[i]);

	UInt sb_len = 0; /* instructions in the superblock */
	for (Int j = i; j < in->stmts_used; j++)
		sb_len += in->stmts[j] && in->stmts[j]->tag == Ist_IMark;
	tl_assert(sb_len <= PS_ARG_LEFT_MAX);

	UInt delta = 0;         /* instructions since the counter was last updated */
	UInt idx = 0;           /* this instruction's number in the superblock, from 1 */
	Addr ip = 0;
	ULong run_page = ~0ull; /* current code run */
	IRConst *run_arg = NULL, *run_delta_c = NULL, *run_count = NULL; /* completed at the run's end */
	UInt run_n = 0, run_delta = 0, run_left = 0;
#if VG_WORDSIZE == 8
#define SET_RUN_ARG() (run_arg->Ico.U64 = (ULong)run_delta << 32 | \
		(ULong)run_left << PS_ARG_LEFT_SHIFT | run_n)
#define SET_RUN_COUNT() (run_count->Ico.U64 = run_n)
#else
#define SET_RUN_COUNT() (run_count->Ico.U32 = run_n)
#define SET_RUN_ARG() (run_arg->Ico.U32 = run_left << PS_ARG_LEFT_SHIFT | run_n, \
		run_delta_c->Ico.U32 = run_delta)
#endif
#define END_RUN() do { if (run_arg) { SET_RUN_ARG(); \
		if (run_count) SET_RUN_COUNT(); } run_arg = NULL; } while (0)
#define LEFT (sb_len - idx)

	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		if (!st || st->tag == Ist_NoOp)
			continue;
		switch (st->tag) {
		case Ist_IMark: {
			delta++;
			idx++;
			ip = st->Ist.IMark.addr;
			addStmtToIRSB(out, st);
			ULong page = ip >> ps_clo_page_shift;
			if (page == run_page && run_arg) {
				run_n++;
				break;
			}
			END_RUN();
			run_page = page;
			run_n = 1;
			run_delta = delta;
			run_left = LEFT;
			add_code(out, ip, idx == 1, sb_len, &run_arg, &run_delta_c, &run_count);
			break;
		}
		case Ist_WrTmp:
			if (st->Ist.WrTmp.data->tag == Iex_Load) {
				IRExpr *ld = st->Ist.WrTmp.data;
				add_data(out, ld->Iex.Load.addr, sizeofIRType(ld->Iex.Load.ty), False,
					 NULL, delta, LEFT, ip);
			}
			addStmtToIRSB(out, st);
			break;
		case Ist_Store: {
			IRType ty = typeOfIRExpr(tyenv, st->Ist.Store.data);
			add_data(out, st->Ist.Store.addr, sizeofIRType(ty), True, NULL, delta, LEFT, ip);
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;
			IRType ty = typeOfIRExpr(tyenv, sg->data);
			add_data(out, sg->addr, sizeofIRType(ty), True, sg->guard, delta, LEFT, ip);
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType ty = Ity_INVALID, wide = Ity_INVALID;
			typeOfIRLoadGOp(lg->cvt, &wide, &ty);
			add_data(out, lg->addr, sizeofIRType(ty), False, lg->guard, delta, LEFT, ip);
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;
			if (d->mFx != Ifx_None) {
				if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
					add_data(out, d->mAddr, d->mSize, False, NULL, delta, LEFT, ip);
				if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
					add_data(out, d->mAddr, d->mSize, True, NULL, delta, LEFT, ip);
			}
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
			if (cas->dataHi)
				size *= 2;
			add_data(out, cas->addr, size, False, NULL, delta, LEFT, ip);
			add_data(out, cas->addr, size, True, NULL, delta, LEFT, ip);
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_LLSC:
			if (!st->Ist.LLSC.storedata)
				add_data(out, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)), False,
					 NULL, delta, LEFT, ip);
			else
				add_data(out, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)), True,
					 NULL, delta, LEFT, ip);
			addStmtToIRSB(out, st);
			break;
		case Ist_Exit:
			if (delta) {
				add_counter(out, delta);
				delta = 0;
				/* the run goes on after a side exit not taken; its later
				 * instructions' times count from the new counter value */
			}
			addStmtToIRSB(out, st);
			break;
		default:
			addStmtToIRSB(out, st);
			break;
		}
	}
	END_RUN();
	if (delta)
		add_counter(out, delta);
#undef END_RUN
#undef SET_RUN_ARG
#undef SET_RUN_COUNT
#undef LEFT
	return out;
}

/* ---- client requests ---------------------------------------------------------------------- */

/* Copy a client string, stopping at unreadable memory. */
static void client_string(Addr a, HChar *buf, SizeT len)
{
	SizeT n = 0;
	while (n + 1 < len) {
		if ((n == 0 || ((a + n) & 4095) == 0) &&
		    !VG_(am_is_valid_for_client)(a + n, 1, VKI_PROT_READ))
			break;
		HChar c = *(const HChar *)(a + n);
		if (!c)
			break;
		buf[n++] = c;
	}
	buf[n] = 0;
}

static Bool client_request(ThreadId tid, UWord *arg, UWord *ret)
{
	(void)tid;
	if (!VG_IS_TOOL_USERREQ('P', 'S', arg[0]))
		return False;
	if (arg[0] == PAGESLEUTH_USERREQ_MARK) {
		HChar text[512];
		client_string(arg[1], text, sizeof text);
		/* samples up to now come first on the time axis */
		ps_ws_catch_up(ps_instr_count + 1);
		ps_rec_begin("mark");
		ps_rec_u("t", ps_instr_count);
		ps_rec_u("tid", ps_cur_thread);
		ps_rec_s("text", text);
		ps_rec_end();
		*ret = 0;
		return True;
	}
	VG_(message)(Vg_UserMsg, "pagesleuth: unknown client request 0x%lx ignored\n", arg[0]);
	*ret = 0;
	return True;
}

/* ---- threads ---------------------------------------------------------------------------- */

static void on_start_client_code(ThreadId tid, ULong blocks)
{
	(void)blocks;
	ps_ws_switch_thread(tid);
}

static void on_thread_create(ThreadId parent, ThreadId child)
{
	(void)parent;
	ps_ws_thread_start(child);
}

static void on_thread_exit(ThreadId tid)
{
	ps_ws_thread_exit(tid);
}

/* ---- start and end -------------------------------------------------------------------- */

/* --ws-tau's bound depends on --ws-every, given in either order: checked on the command line
 * before the options are parsed one by one, so a run that cannot start stops before
 * Valgrind's banner (post_clo_init comes after it). The last occurrence of each counts, as
 * in parsing; values that are not numbers are left to process_option to report. */
static void check_tau_bound(void)
{
	Long every = 100000, tau = 0;
	XArray *args = VG_(args_for_valgrind);
	for (Word i = 0; args && i < VG_(sizeXA)(args); i++) {
		const HChar *a = *(HChar **)VG_(indexXA)(args, i);
		if (VG_(strncmp)(a, "--pagesleuth:", 13) == 0)
			a += 13;
		else if (a[0] == '-' && a[1] == '-')
			a += 2;
		else
			continue;
		Long *dst = VG_(strncmp)(a, "ws-every=", 9) == 0 ? &every :
			    VG_(strncmp)(a, "ws-tau=", 7) == 0 ? &tau : NULL;
		if (!dst)
			continue;
		const HChar *v = VG_(strchr)(a, '=') + 1;
		HChar *end;
		Long n = VG_(strtoll10)(v, &end);
		if (*v && !*end && n > 0)
			*dst = n;
	}
	if (tau && (ULong)tau / (ULong)every > WS_MAX_RING - 2) {
		VG_(fmsg)("Bad option: --ws-tau=%lld: --ws-tau may be at most %u times --ws-every\n",
			  tau, WS_MAX_RING - 2);
		VG_(exit)(1);
	}
}

static void post_clo_init(void)
{
	if (clo_tau == 0)
		clo_tau = clo_every;
	/* check_tau_bound saw the same arguments */
	tl_assert((ULong)clo_tau / (ULong)clo_every <= WS_MAX_RING - 2);
	ps_clo_every = (ULong)clo_every;
	ps_clo_tau = (ULong)clo_tau;
	ps_clo_page_shift = 0;
	while ((1LL << ps_clo_page_shift) < clo_page_size)
		ps_clo_page_shift++;

	HChar *path = out_path();
	if (!ps_out_open(path)) {
		VG_(fmsg)("pagesleuth: cannot create %s (the record file %s)\n", ps_out_temp_path(), path);
		VG_(exit)(1);
	}

	/* the client's command line, for the header */
	SizeT len = VG_(strlen)(VG_(args_the_exename)) + 1;
	for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++)
		len += VG_(strlen)(*(HChar **)VG_(indexXA)(VG_(args_for_client), i)) + 1;
	HChar *cmd = VG_(malloc)("ps.cmd", len);
	VG_(strcpy)(cmd, VG_(args_the_exename));
	for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++) {
		VG_(strcat)(cmd, " ");
		VG_(strcat)(cmd, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
	}
	const HChar *prog = VG_(strrchr)(VG_(args_the_exename), '/');
	prog = prog ? prog + 1 : VG_(args_the_exename);
	struct vki_timeval tv = { 0, 0 };
	VG_(gettimeofday)(&tv, NULL);
	ps_out_header("valgrind", (UInt)clo_page_size, prog, VG_(getpid)(), ps_clo_every,
		      ps_clo_tau, cmd, (ULong)tv.tv_sec);
	VG_(free)(cmd);

	ps_ws_init();
	ps_heap_post_clo_init();
}

/* Records completed (at the end, or at an exec): nothing more is recorded. */
static Bool finished;
static Bool exec_pending; /* finished at an exec that has not returned yet */

/* The end of the program's own work: the working set's last samples, peaks and summaries,
 * the hot pages; accesses are no longer counted. At exit_group (before the core runs
 * __libc_freeres in the client), at an exec, or at fini (a fatal signal). */
static void end_of_run(void)
{
	static Bool done;
	if (done)
		return;
	done = True;
	ps_ws_finish();
	ps_hot_write();
	ps_heap_end_of_run();
}

/* Everything the run has not written yet (the heap records, after libc's clean-up), then the
 * file is synced and renamed. False (the reason said in one line) if it could not be
 * written. */
static Bool finish_records(void)
{
	finished = True;
	end_of_run();
	ps_heap_fini();
	/* last: the tid=0 summary closes the trace, so a reader seeing it has seen everything */
	ps_ws_write_process_summary();
	return ps_out_close();
}

static void fini(Int exitcode)
{
	(void)exitcode;
	if (finished)
		return; /* at an exec that failed: said then */
	if (!finish_records())
		VG_(exit)(1); /* the program's own status would hide the lost records */
	if (VG_(clo_verbosity) > 0) /* -q: only errors */
		VG_(umsg)("pagesleuth: %llu instructions; records in %s\n", ps_ws_end_time(),
			  ps_out_path);
}

/* A forked child runs in a copy of the tool, with the parent's record file open and a copy
 * of its unwritten records: were it to write, sync or rename the file (at its exit, or at
 * the exec of system() and popen()), the parent's records would be cut or doubled. The
 * child is not recorded. */
static void at_fork_child(ThreadId tid)
{
	(void)tid;
	ps_out_abandon();
	finished = True;
}

/* ---- exec ---------------------------------------------------------------------------------- */
/* An exec replaces the program (run natively, or by a new Valgrind with
 * --trace-children=yes): the core does not call fini, so the records are completed at the
 * exec, as if the program ended there. Valgrind refuses an exec it cannot do before it
 * happens (the program goes on: execvp tries each PATH directory), so this checks the same
 * first: the file exists, is a regular file someone may execute, and starts like an ELF
 * file or a script. */
static Bool exec_will_run(const HChar *path)
{
	SysRes sr = VG_(open)(path, VKI_O_RDONLY, 0);
	if (sr_isError(sr))
		return False;
	Int fd = (Int)sr_Res(sr);
	struct vg_stat st;
	UChar magic[4] = { 0, 0, 0, 0 };
	Bool ok = VG_(fstat)(fd, &st) == 0 && VKI_S_ISREG(st.mode) &&
		  (st.mode & (VKI_S_IXUSR | VKI_S_IXGRP | VKI_S_IXOTH)) &&
		  VG_(read)(fd, magic, 4) >= 2 &&
		  ((magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F') ||
		   (magic[0] == '#' && magic[1] == '!'));
	VG_(close)(fd);
	return ok;
}

#define AT_FDCWD_ (-100)
#define AT_EMPTY_PATH_ 0x1000

static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	(void)tid;
	(void)nargs;
	if (finished)
		return;
	/* The program ends: what follows (__libc_freeres, run by the core for the heap
	 * modules) is not its work. A last thread's exit ends it too. */
	if (sysno == __NR_exit_group || (sysno == __NR_exit && ps_ws_live_threads() <= 1)) {
		end_of_run();
		return;
	}
	if (sysno != __NR_execve && sysno != __NR_execveat)
		return;
	HChar path[4096], name[4096];
	if (sysno == __NR_execve) {
		client_string(args[0], path, sizeof path);
	} else {
		/* execveat(dirfd, name, argv, envp, flags): the file through /proc/self/fd */
		Int dirfd = (Int)args[0];
		client_string(args[1], name, sizeof name);
		if (name[0] == '/' || (dirfd == AT_FDCWD_ && name[0]))
			VG_(strcpy)(path, name);
		else if (!name[0] && (args[4] & AT_EMPTY_PATH_))
			VG_(snprintf)(path, sizeof path, "/proc/self/fd/%d", dirfd);
		else
			VG_(snprintf)(path, sizeof path, "/proc/self/fd/%d/%s", dirfd, name);
	}
	if (!path[0] || !exec_will_run(path))
		return;
	exec_pending = True;
	if (finish_records() && VG_(clo_verbosity) > 0)
		VG_(umsg)("pagesleuth: %llu instructions until exec; records in %s\n",
			  ps_ws_end_time(), ps_out_path);
}

static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
	(void)tid;
	(void)args;
	(void)nargs;
	if (!exec_pending || (sysno != __NR_execve && sysno != __NR_execveat))
		return;
	exec_pending = False;
	if (sr_isError(res))
		VG_(umsg)("pagesleuth: the exec failed after the records were completed at it; the rest of the run is not recorded\n");
}

static void pre_clo_init(void)
{
	VG_(details_name)("pagesleuth");
	VG_(details_version)("0.1");
	VG_(details_description)("working sets, hot pages and memory objects over time");
	VG_(details_copyright_author)("pagesleuth authors; GNU GPL'd");
	VG_(details_bug_reports_to)("the pagesleuth issue tracker");
	VG_(details_avg_translation_sizeB)(300);
	VG_(basic_tool_funcs)(post_clo_init, instrument, fini);
	VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
	VG_(needs_client_requests)(client_request);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
	VG_(atfork)(NULL, NULL, at_fork_child);
	VG_(track_start_client_code)(on_start_client_code);
	VG_(track_pre_thread_ll_create)(on_thread_create);
	VG_(track_pre_thread_ll_exit)(on_thread_exit);
	check_tau_bound();
	ps_heap_pre_clo_init();
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
