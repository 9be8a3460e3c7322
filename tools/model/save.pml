/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of what a load does to the region before recording (save.c:
 * ramtrail_save_previous(), storage.c: ramtrail_storage_format()) and of
 * the user's erase through pstore (pstore.c: ramtrail_erase()),
 * for SPIN; run.sh checks it exhaustively.
 *
 * Boot after boot, the machine loads the module (with reset=1 or not),
 * records or not, lets the user erase saved traces, and crashes; a reset
 * may cut any step. Memory keeps what was stored. Each store below is one
 * step; a reset may come between any two.
 *
 * The region: the header (its state word, outside the checksum; the boot
 * number and nonce the checksum covers, and whether it holds), the zones
 * (the generation whose records they hold: each format is a generation,
 * its nonce), and K slots of the saved area, each an entry with its magic,
 * whether its checksum holds, its boot number, the generation of the
 * records its chunks hold and its erased word (outside the checksum).
 * Slots stand for the spans ramtrail_saved_place() finds; the chunks'
 * own checksums and parity, the dmesg records and the module table are
 * not modelled.
 *
 * Checked, at every boot (after any reset) and at the end:
 *   kept    every trace sealed in the saved area and not erased by the
 *           user is still there, whole;
 *   once    no trace is saved twice;
 *   named   a saved trace bears the boot number of the boot that recorded
 *           it, and no two shown traces bear the same;
 * and before the zones are cleared:
 *   lost    the records they hold were saved, or the save said there was
 *           no room, or the load was told to drop them (reset=1).
 *
 * Mutations (-D), each of which the checker must refute (run.sh):
 *   MUT_SEAL_FIRST  the entry's header sealed before its chunks
 *   MUT_NO_ALREADY  no look for an entry of the same boot and nonce
 *   MUT_PLACE_ANY   the new entry may go over a trace not erased
 *   MUT_NO_FORMATTING  the header rewritten without the FORMATTING store
 *   MUT_NO_COLLECT_CHECK  the collector clears entries not fully erased
 */

#ifndef K
#define K	2	/* slots of the saved area */
#endif
#ifndef GENS
#define GENS	5	/* formats explored */
#endif

/* enum ramtrail_state (include/uapi/linux/ramtrail.h) */
#define EMPTY		0
#define FORMATTING	1
#define RECORDING	2
#define SAVED		5

/* The header. */
byte hstate;		/* state word */
byte hboot;		/* boot_id */
byte hnonce;		/* nonce: the generation that formatted it */
bool hok;		/* its checksum holds */

byte zone;		/* generation whose records the zones hold, 0 none */

typedef Slot {
	bool magic;	/* RAMTRAIL_SAVED_MAGIC */
	bool sum;	/* its checksum holds */
	byte boot;	/* boot_id */
	byte nonce;	/* nonce */
	byte gen;	/* generation of the records its chunks hold */
	bool erased;	/* every part erased */
};
Slot s[K];

/* Ghosts: what happened, for the checks. */
byte gen;			/* formats so far */
byte genboot[GENS + 1];		/* boot number each format wrote */
bool sealed[GENS + 1];		/* that generation's trace was sealed */
bool erased[GENS + 1];		/* the user erased it */
bool lost[GENS + 1];		/* the save found no room for it */

#define valid(i)	(s[i].magic && s[i].sum)

/* A reset may come here: the next boot starts on memory as it is. */
#define STEP		if :: skip :: goto boot fi

/* c, d, g2: the caller's */
inline check()
{
	for (g2 : 1 .. gen) {
		/* kept */
		if
		:: sealed[g2] && !erased[g2] ->
			d = 0;
			for (c : 0 .. K - 1) {
				if
				:: valid(c) && s[c].gen == g2 && !s[c].erased -> d++
				:: else
				fi
			}
			assert(d >= 1);
		:: else
		fi
	}
	for (c : 0 .. K - 1) {
		if
		:: valid(c) ->
			/* named: the boot that recorded them */
			assert(s[c].gen >= 1 && s[c].boot == genboot[s[c].gen]);
			for (d : c + 1 .. K - 1) {
				if
				:: valid(d) ->
					/* once */
					assert(s[c].gen != s[d].gen);
					/* named: one trace per boot number shown */
					assert(s[c].erased || s[d].erased ||
					       s[c].boot != s[d].boot);
				:: else
				fi
			}
		:: else
		fi
	}
}

active proctype machine()
{
	byte i, at, id, c, d, g2;
	bool reset_param;

boot:
	check();
	if
	:: gen == GENS -> goto done
	:: else
	fi;
	if
	:: reset_param = false
	:: reset_param = true
	fi;

	/* ramtrail_save_previous() */
	if
	:: reset_param -> lost[zone] = true; goto format	/* the user's choice */
	:: else
	fi;
	/* ramtrail_zones_hold_trace(): header valid, zones not yet saved */
	if
	:: hok && hstate == RECORDING -> skip
	:: else -> goto format		/* nothing to save (or unreadable) */
	fi;
	/* ramtrail_saved_already(): an entry of this boot and nonce */
#ifndef MUT_NO_ALREADY
	for (i : 0 .. K - 1) {
		if
		:: valid(i) && s[i].boot == hboot && s[i].nonce == hnonce ->
			goto set_saved
		:: else
		fi
	}
#endif
	/* ramtrail_zones_recorded() */
	if
	:: zone == 0 -> goto set_saved
	:: else
	fi;
	/* ramtrail_saved_collect(): an erased entry's magic cleared, one store */
	for (i : 0 .. K - 1) {
		if
#ifdef MUT_NO_COLLECT_CHECK
		:: valid(i) -> STEP; s[i].magic = false
#else
		:: valid(i) && s[i].erased -> STEP; s[i].magic = false
#endif
		:: true
		fi
	}
	/* ramtrail_saved_place(): a span where no trace not erased lies */
	at = K;
	for (i : 0 .. K - 1) {
		if
#ifdef MUT_PLACE_ANY
		:: at == K -> at = i
#else
		:: at == K && !(valid(i) && !s[i].erased) -> at = i
#endif
		:: true
		fi
	}
	if
	:: at == K -> lost[zone] = true; goto set_saved	/* "saved area full" */
	:: else
	fi;
#ifdef MUT_SEAL_FIRST
	STEP; s[at].boot = hboot; s[at].nonce = hnonce; s[at].erased = false;
	s[at].magic = true;
	STEP; s[at].sum = true;
	STEP; s[at].gen = zone;
	sealed[zone] = true;
#else
	/* memset(t, 0, RAMTRAIL_SAVED_HEAD_SLOT) */
	STEP; s[at].magic = false; s[at].sum = false;
	/* ramtrail_saved_merge(): the chunks */
	STEP; s[at].gen = zone;
	/* ramtrail_saved_seal(): fields and magic, then ramtrail_saved_sign() */
	STEP; s[at].boot = hboot; s[at].nonce = hnonce; s[at].erased = false;
	s[at].magic = true;
	STEP; s[at].sum = true;
	sealed[zone] = true;
#endif
set_saved:
	/* ramtrail_set_state(cxt, RAMTRAIL_STATE_SAVED) */
	STEP; hstate = SAVED;

format:
	/* ramtrail_next_boot_id(): past the header's (if it holds) and every entry's */
	id = 0;
	if
	:: hok -> id = hboot
	:: else
	fi;
	for (i : 0 .. K - 1) {
		if
		:: valid(i) && s[i].boot > id -> id = s[i].boot
		:: else
		fi
	}
	id++;
	/* lost: the zones are about to be cleared */
	assert(zone == 0 || sealed[zone] || lost[zone]);
	/* ramtrail_storage_format() */
#ifndef MUT_NO_FORMATTING
	STEP; hstate = FORMATTING;
#endif
	/*
	 * memcpy(cxt->hdr, h, sizeof(*h)): the checksum holds once every
	 * covered word is stored; the state word (EMPTY in h) is stored
	 * before or after them.
	 */
	gen++;
	genboot[gen] = id;
	if
	:: STEP; hstate = EMPTY; STEP; hok = false; STEP;
		hboot = id; hnonce = gen; hok = true
	:: STEP; hok = false; STEP; hboot = id; hnonce = gen; hok = true;
		STEP; hstate = EMPTY
	fi;
	/* memset() of the zones */
	STEP; zone = 0;
	STEP; hstate = RECORDING;

	/* Recording, or not. */
	if
	:: STEP; zone = gen
	:: skip
	fi;
	/* The user erases saved traces (each one store), or not. */
	for (i : 0 .. K - 1) {
		if
		:: valid(i) && !s[i].erased -> STEP; s[i].erased = true;
			erased[s[i].gen] = true
		:: true
		fi
	}
	/* A crash, or the user's reboot (module unloaded: STOPPED, read too). */
	goto boot;
done:
	check()
}
