/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of one CPU's zone and its writers (fs/ramtrail/ring.h, ring.c),
 * a freeze from another CPU (record.c: ramtrail_rings_seal) and the
 * reader's acceptance rule (zone.c; format.rst, "How a reader decides
 * what is valid"), for SPIN. tools/model/run.sh checks it exhaustively.
 *
 * The zone has NB blocks of BW words: word 0 the header (one word here:
 * its block number; the three words of the real header are stored by one
 * writer in program order, so one store stands for them), word 1 the
 * seal, words 2.. the records. A record is one word (FUNC) or two (a head
 * and its CONT). Positions count words and never wrap; block g lies in
 * slot g % NB, in lap (g / NB) % 4.
 *
 * The CPU runs a stack of writers: the task-level one and up to DEPTH - 1
 * nested ones (interrupts, NMIs). At every step either the innermost
 * writer does one store or one check, a new writer interrupts it, the
 * freeze (another CPU) does one step, or the machine resets; after a reset
 * the reader runs on the memory as it is. Each store to the zone is one
 * single-copy-atomic step; accesses an interrupt cannot tell apart share a
 * step (writer.rst maps the steps to the code). The model keeps program
 * order ([R1]-[R7] are compiler barriers in the code) and lets the freeze's
 * CPU see this CPU's stores in that order, as x86 does.
 *
 * Checked:
 *   stores  no store lands in a slot a later block took ([R4]), or in a
 *           block after its seal ([R7]); a seal store of a block whose
 *           slot a later block took is the one exception ([R7]);
 *   order   on the CPU, a later reservation has a later time ([R1]);
 *   reader  every record it accepts was stored whole by the one writer
 *           that reserved that position in that block; every record
 *           stored whole and not overwritten is accepted; the accepted
 *           records are in time order.
 *
 * Not modelled: tasks ([R5]), FUNC_REF ([R6]), TSEXT and the time base
 * ([R2]), the seal's hash (a store after a seal is an assertion here).
 *
 * Mutations (-D), each of which the checker must refute (run.sh):
 *   MUT_R1  read the counter once, before the reservation loop
 *   MUT_R3  trust the block cache without its generation check
 *   MUT_R4  let nested writers enter any block
 *   MUT_R7  nested writers seal too
 *   MUT_LAP the reader accepts a word of any lap
 *   MUT_TAIL (with FREEZE) a freeze stopped at a block's start takes the
 *           block before the oldest the zone holds for gone
 */

#ifndef NB
#define NB	3
#endif
/*
 * A real block (512 words) is far larger than what a CPU's contexts can
 * have reserved in it at once and not stored yet (4 records of at most 70
 * words): some word of every block a later one follows is stored. So is
 * it here: a block holds more words than DEPTH records of 2 words.
 */
#ifndef BW
#define BW	(FIRST + 2 * DEPTH + 1)	/* words a block */
#endif
#define FIRST	2		/* first record word: header, seal */
#define NW	(NB * BW)
#ifndef DEPTH
#define DEPTH	3		/* writers in flight: the task and nested ones */
#endif
#ifndef RECS
#define RECS	6		/* writers in a run */
#endif
#define IDLE	255
#define NONE	255
#define LAP(g)	(((g) / NB) % 4)

/* word types */
#define T_HDR	1
#define T_PAD	2
#define T_SEAL	3
#define T_H1	4		/* a one-word record */
#define T_H2	5		/* the head of a two-word record */
#define T_CONT	6

/* The zone: type, lap, record (or, in a header, block number), time. */
byte mt[NW], ml[NW], mr[NW], mv[NW];

/* struct ramtrail_ring */
byte rpos;			/* ring->pos, in words */
byte rcache;			/* ring->block: the block it describes */
byte rfloor = IDLE;		/* ring->floor */
byte rsealed;			/* ring->sealed */
bit rstopped;			/* ring->stopped */
byte clock;			/* ramtrail_clock() */
byte dropped;			/* ring->dropped */

/* the freeze record */
bit fsealed;			/* the zone is sealed up to fend */
byte fend;

bit crashed;

/* ghost state */
byte owner[NB];			/* newest block reserved in each slot */
byte sealed_g[NB];		/* block sealed in each slot */
byte rec_pos[RECS], rec_len[RECS], rec_ts[RECS], rec_done[RECS];
bit rec_seen[RECS];
byte last_res_ts;		/* time of the newest reservation */
byte nrec;			/* writers started */

/* the writers in flight, innermost at top - 1 */
#define P_START	0
#define P_LOAD	1
#define P_CAS	2
#define P_PAD	3
#define P_HDR	4
#define P_CACHE	5
#define P_REC	6
#define P_SEAL	7
#define P_OUT	8
byte top;
byte w_pc[DEPTH], w_pos[DEPTH], w_ts[DEPTH], w_len[DEPTH], w_rid[DEPTH];
byte w_pad[DEPTH], w_k[DEPTH], w_g[DEPTH], w_first[DEPTH];
bit w_outer[DEPTH], w_new[DEPTH], w_slow[DEPTH];
byte off, nxt, gnew;		/* P_CAS's locals */

/*
 * One single-copy-atomic store into block blk, word i of it. A seal of a
 * block whose slot a later block took (seal = 1) is stale, and allowed.
 */
inline store(blk, i, t, l, r, v, seal)
{
	assert(owner[(blk) % NB] == (blk) || (seal && owner[(blk) % NB] > (blk)));
	assert(sealed_g[(blk) % NB] != (blk));
	mt[((blk) % NB) * BW + (i)] = t;
	ml[((blk) % NB) * BW + (i)] = l;
	mr[((blk) % NB) * BW + (i)] = r;
	mv[((blk) % NB) * BW + (i)] = v
}

/* One step of the innermost writer, d. */
inline step(d)
{
	if
	:: w_pc[d] == P_START ->
		/* ring.h: outer = floor idle; a stopped ring refuses */
		w_outer[d] = (rfloor == IDLE);
		if
		:: rstopped -> dropped++; w_pc[d] = P_OUT
#ifdef MUT_R1
		:: else -> w_ts[d] = clock; clock++; w_pc[d] = P_LOAD
#else
		:: else -> w_pc[d] = P_LOAD
#endif
		fi
	:: w_pc[d] == P_LOAD ->
		/*
		 * pos = local_read(&r->pos); [R4] the floor; [R1] the counter.
		 * One step: a writer that interrupts between them moves pos,
		 * so the cmpxchg fails and this is done again, as if it had
		 * interrupted before.
		 */
		w_pos[d] = rpos;
		if
		:: w_outer[d] -> rfloor = w_pos[d]
		:: else -> skip
		fi;
#ifndef MUT_R1
		w_ts[d] = clock; clock++;
#endif
		w_pc[d] = P_CAS
	:: w_pc[d] == P_CAS ->
		/*
		 * The fast path's checks, or the slow path's, and the
		 * local_cmpxchg(): one step, as they touch only this CPU's
		 * ring, which no other context changes in between without
		 * the cmpxchg failing.
		 */
		off = w_pos[d] % BW;
		w_new[d] = 0; w_pad[d] = 0; w_slow[d] = 0;
		if
		:: rstopped -> dropped++; w_pc[d] = P_OUT; goto stepped
		:: else -> skip
		fi;
#ifdef MUT_R3
		if
		:: off != 0 && off + w_len[d] <= BW ->
#else
		if
		:: rcache == w_pos[d] / BW && off != 0 && off + w_len[d] <= BW ->
#endif
			/* ring.h fast path: the block cache names the block */
			nxt = w_pos[d] + w_len[d]; w_g[d] = rcache;
			w_first[d] = (rcache % NB) * BW + off
		:: else ->
			/* ring.c slow path */
			w_slow[d] = 1;
			if
			:: off != 0 && off + w_len[d] <= BW ->
				nxt = w_pos[d] + w_len[d]; w_g[d] = w_pos[d] / BW
			:: else ->
				if
				:: off != 0 -> w_pad[d] = BW - off
				:: else -> skip
				fi;
				w_new[d] = 1;
				nxt = w_pos[d] + w_pad[d] + FIRST + w_len[d];
				gnew = (nxt - 1) / BW;
				w_g[d] = gnew;
#ifndef MUT_R4
				/*
				 * [R4] a nested writer: not the floor's slot,
				 * nor the one before
				 */
				if
#ifdef MUT_R4_OUTER
				:: rfloor != IDLE && gnew - rfloor / BW >= NB - 1 ->
#else
				:: !w_outer[d] && rfloor != IDLE &&
				   gnew - rfloor / BW >= NB - 1 ->
#endif
					/* the outermost writer is never refused */
					assert(!w_outer[d]);
					dropped++; w_pc[d] = P_OUT; goto stepped
				:: else -> skip
				fi
#endif
			fi;
			w_first[d] = (w_g[d] % NB) * BW + (nxt - w_len[d]) % BW
		fi;
		if
		:: rpos != w_pos[d] -> w_pc[d] = P_LOAD	/* cmpxchg failed */
		:: else ->
			rpos = nxt;
			/* [R1]: ring order is time order */
			assert(w_ts[d] >= last_res_ts);
			last_res_ts = w_ts[d];
			rec_pos[w_rid[d]] = w_g[d] * BW + (nxt - w_len[d]) % BW;
			rec_ts[w_rid[d]] = w_ts[d];
			if
			:: w_new[d] -> owner[w_g[d] % NB] = w_g[d]
			:: else -> skip
			fi;
			w_k[d] = 0;
			if
			:: w_pad[d] -> w_pc[d] = P_PAD
			:: !w_pad[d] && w_new[d] -> w_pc[d] = P_HDR
			:: else -> w_pc[d] = P_REC
			fi
		fi
stepped:	off = 0; nxt = 0; gnew = 0
	:: w_pc[d] == P_PAD ->
		/* the old block's tail */
		store(w_pos[d] / BW, w_pos[d] % BW + w_k[d], T_PAD,
		      LAP(w_pos[d] / BW), 0, w_ts[d], 0);
		w_k[d]++;
		if
		:: w_k[d] == w_pad[d] -> w_pc[d] = P_HDR
		:: else -> skip
		fi
	:: w_pc[d] == P_HDR ->
		/*
		 * The header, and a PAD of the block's lap in the seal word:
		 * not sealed yet. One step: read before, between or after
		 * these stores, the block is not sealed.
		 */
		store(w_g[d], 0, T_HDR, LAP(w_g[d]), w_g[d], w_ts[d], 0);
		store(w_g[d], 1, T_PAD, LAP(w_g[d]), 0, w_ts[d], 0);
		w_pc[d] = P_CACHE
	:: w_pc[d] == P_CACHE ->
		/* [R3] WRITE_ONCE(r->block, blk) */
		rcache = w_g[d];
		w_k[d] = 0;
		w_pc[d] = P_REC
	:: w_pc[d] == P_REC ->
		/* the record's words, head first */
		if
		:: w_k[d] == 0 && w_len[d] == 1 ->
			store(w_g[d], w_first[d] % BW, T_H1, LAP(w_g[d]), w_rid[d], w_ts[d], 0)
		:: w_k[d] == 0 && w_len[d] == 2 ->
			store(w_g[d], w_first[d] % BW, T_H2, LAP(w_g[d]), w_rid[d], w_ts[d], 0)
		:: w_k[d] == 1 ->
			store(w_g[d], w_first[d] % BW + 1, T_CONT, LAP(w_g[d]), w_rid[d], w_ts[d], 0)
		fi;
		w_k[d]++;
		rec_done[w_rid[d]] = w_k[d];
		if
		:: w_k[d] == w_len[d] ->
			w_k[d] = 0;
			w_pc[d] = P_SEAL
		:: else -> skip
		fi
	:: w_pc[d] == P_SEAL ->
		/*
		 * [R7] the outermost writer, after its record, seals the
		 * blocks before its record's block, one store each; those
		 * whose slot a later lap took are skipped.
		 */
		if
#ifdef MUT_R7
		:: w_slow[d] && rsealed < w_g[d] ->
#else
		:: w_outer[d] && w_slow[d] && rsealed < w_g[d] ->
#endif
			if
			:: w_g[d] - rsealed >= NB -> rsealed = w_g[d] + 1 - NB
			:: else ->
				store(rsealed, 1, T_SEAL, LAP(rsealed), 0, 0, 1);
				if
				:: owner[rsealed % NB] == rsealed -> sealed_g[rsealed % NB] = rsealed
				:: else -> skip
				fi;
				rsealed++
			fi
		:: else -> w_pc[d] = P_OUT
		fi
	:: w_pc[d] == P_OUT ->
		/* [R4] stores done before the floor is released */
		if
		:: w_outer[d] -> rfloor = IDLE
		:: else -> skip
		fi;
		top--
	fi
}

/*
 * The freeze, on another CPU (record.c): stop the ring, wait until its
 * writers are out of their records, seal it up to where it stopped, say
 * so in the freeze record's last store. Or give up waiting: not sealed.
 */
proctype freeze()
{
	byte g, end;

	atomic { if :: crashed -> goto done :: else -> rstopped = 1 fi };
	if
	:: atomic { crashed || rfloor == IDLE ->
		if :: crashed -> goto done :: else -> end = rpos; g = rsealed fi }
	:: goto done
	fi;
	/*
	 * ramtrail_ring_seal_tail(): the blocks before end's that the zone
	 * holds (up to the one entered last), then end's over its words
	 */
	do
	:: end && g < end / BW ->
		if
#ifdef MUT_TAIL
		:: end / BW - g >= NB -> g = end / BW + 1 - NB
#else
		:: (end - 1) / BW - g >= NB -> g = (end - 1) / BW + 1 - NB
#endif
		:: else ->
			atomic { if :: crashed -> goto done :: else -> skip fi;
				 store(g, 1, T_SEAL, LAP(g), 0, 0, 1);
				 sealed_g[g % NB] = g }
			g++
		fi
	:: else -> break
	od;
	if
	:: end % BW ->
		atomic { if :: crashed -> goto done :: else -> skip fi;
			 store(g, 1, T_SEAL, LAP(g), 0, end % BW, 0);
			 sealed_g[g % NB] = g }
	:: else -> skip
	fi;
	atomic { if :: crashed -> goto done :: else -> fend = end; fsealed = 1 fi };
done:	skip
}

/*
 * The reader on the zone as the reset left it (zone.c): find the
 * newest block, check every block of the window, accept records.
 */
inline reader()
{
	byte s, g, b, i, L, lo, newest, last_ts;
	bit placed[NB], found, bad, sealed, later_sealed, ok;

	/* 1. placed headers */
	for (s : 0 .. NB - 1) {
		placed[s] = (mt[s * BW] == T_HDR && mr[s * BW] % NB == s &&
			     ml[s * BW] == LAP(mr[s * BW]))
	}
	/* 2. the newest: corroborated by the slot before, else the highest */
	found = 0; newest = NONE;
	for (s : 0 .. NB - 1) {
		g = mr[s * BW];
		if
		:: placed[s] && (g == 0 || (placed[(g + NB - 1) % NB] &&
					    mr[((g + NB - 1) % NB) * BW] == g - 1)) &&
		   (!found || g > newest) -> newest = g; found = 1
		:: else -> skip
		fi
	}
	if
	:: !found ->
		for (s : 0 .. NB - 1) {
			if
			:: placed[s] && (newest == NONE || mr[s * BW] > newest) ->
				newest = mr[s * BW]
			:: else -> skip
			fi
		}
	:: else -> skip
	fi;
	/*
	 * 3. past the newest, over blocks whose header is placed or was
	 * lost while their words are of their lap
	 */
	do
	:: true ->
		b = newest + 1;		/* NONE + 1 == 0 */
		s = b % NB;
		ok = (placed[s] && mr[s * BW] == b);
		i = FIRST;
		do
		:: i < BW && !ok ->
			ok = (mt[s * BW + i] != 0 && ml[s * BW + i] == LAP(b) &&
			      !(placed[s] && mr[s * BW] > b));
			i++
		:: else -> break
		od;
		if
		:: ok -> newest = b
		:: else -> break
		fi
	od;
	if
	:: newest == NONE -> goto counted
	:: else -> skip
	fi;
	lo = (newest + 1 >= NB -> newest + 1 - NB : 0);
	/* 4. the blocks of the window, newest first (for later_sealed) */
	later_sealed = 0;
	b = newest + 1;
	do
	:: b > lo ->
		b--;
		s = b % NB; L = LAP(b);
		sealed = (mt[s * BW + 1] == T_SEAL && ml[s * BW + 1] == L);
		bad = 0;
		for (i : 0 .. BW - 1) {
			if
#ifdef MUT_LAP
			:: mt[s * BW + i] == 0 -> skip
#else
			:: mt[s * BW + i] == 0 || ml[s * BW + i] == L ||
			   ml[s * BW + i] == (L + 3) % 4 -> skip
#endif
			:: else -> bad = 1
			fi
		}
		if
		:: fsealed && b * BW < fend && !sealed -> bad = 1
		:: !fsealed && !sealed && later_sealed -> bad = 1
		:: else -> skip
		fi;
		later_sealed = later_sealed | sealed;
		i = FIRST;
		do
		:: bad -> break
		:: !bad && i < BW && (!fsealed || b * BW + i < fend) ->
			if
#ifdef MUT_LAP
			:: mt[s * BW + i] == T_H1 ->
#else
			:: mt[s * BW + i] == T_H1 && ml[s * BW + i] == L ->
#endif
				/* accepted: stored whole by its writer, here, in this block */
				assert(rec_pos[mr[s * BW + i]] == b * BW + i);
				assert(rec_done[mr[s * BW + i]] == 1 && rec_len[mr[s * BW + i]] == 1);
				rec_seen[mr[s * BW + i]] = 1;
				i++
#ifdef MUT_LAP
			:: mt[s * BW + i] == T_H2 && i + 1 < BW &&
			   mt[s * BW + i + 1] == T_CONT &&
			   mv[s * BW + i + 1] == mv[s * BW + i] ->
#else
			:: mt[s * BW + i] == T_H2 && ml[s * BW + i] == L && i + 1 < BW &&
			   mt[s * BW + i + 1] == T_CONT && ml[s * BW + i + 1] == L &&
			   mv[s * BW + i + 1] == mv[s * BW + i] ->
#endif
				assert(rec_pos[mr[s * BW + i]] == b * BW + i);
				assert(mr[s * BW + i + 1] == mr[s * BW + i]);
				assert(rec_done[mr[s * BW + i]] == 2 && rec_len[mr[s * BW + i]] == 2);
				rec_seen[mr[s * BW + i]] = 1;
				i = i + 2
			:: else -> i++
			fi
		:: else -> break
		od
	:: else -> break
	od;
counted:
	/*
	 * Every record stored whole whose slot no later block took is
	 * accepted (a frozen, sealed zone: those before the freeze's end);
	 * the accepted ones are in time order, in position order.
	 */
	last_ts = 0;
	for (i : 0 .. nrec - 1) {
		assert(rec_done[i] != rec_len[i] ||
		       owner[(rec_pos[i] / BW) % NB] != rec_pos[i] / BW ||
		       (fsealed && rec_pos[i] >= fend) || rec_seen[i])
	}
	for (g : 0 .. rpos) {
		/* position order: the record at position g, if accepted */
		for (i : 0 .. nrec - 1) {
			if
			:: rec_seen[i] && rec_pos[i] == g ->
				assert(rec_ts[i] >= last_ts); last_ts = rec_ts[i]
			:: else -> skip
			fi
		}
	}
}

init {
	byte d;

	for (d : 0 .. NB - 1) {
		owner[d] = NONE; sealed_g[d] = NONE
	}
	owner[0] = 0;			/* block 0 is entered by the first record */
	rcache = NONE;
#ifdef FREEZE
	run freeze();
#endif
	do
	:: atomic {
		top < DEPTH && nrec < RECS ->
		/* a writer starts: the task, or one interrupting the innermost */
		w_pc[top] = P_START; w_rid[top] = nrec;
		if
		:: w_len[top] = 1
		:: w_len[top] = 2
		fi;
		rec_len[nrec] = w_len[top];
		rec_pos[nrec] = NONE;
		nrec++; top++
	   }
	:: atomic { top > 0 -> d = top - 1; step(d) }
	:: atomic { crashed = 1; reader(); break }
	od
}
