/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Reed-Solomon parity of a saved trace's chunk slots (ecc.c).
 */
#ifndef _RAMTRAIL_ECC_H
#define _RAMTRAIL_ECC_H

#include "compat.h"
#include <linux/ramtrail.h>

/* Codewords a Reed-Solomon encoder divides side by side. */
#define RAMTRAIL_ECC_LANES	8

/**
 * struct ramtrail_ecc_encoder - a Reed-Solomon encoder's memory
 * @ecc: parity bytes its table was built for, 0 for none yet
 * @row: row f: f times the generator's coefficients, highest power first
 * @win: one division's window per codeword divided side by side
 */
struct ramtrail_ecc_encoder {
	u32 ecc;
	u8 row[256][RAMTRAIL_SAVED_ECC_MAX];
	u8 win[RAMTRAIL_ECC_LANES][RAMTRAIL_SAVED_ECC_N + 8];
};

/*
 * Bytes of a chunk slot of @chunk_size that its chunk may fill, with @ecc
 * parity bytes per codeword after them (the format's picture).
 */
static inline u32 ramtrail_saved_data_size(u32 chunk_size, u32 ecc)
{
	return chunk_size - DIV_ROUND_UP(chunk_size, RAMTRAIL_SAVED_ECC_N) * ecc;
}

void ramtrail_ecc_encode(u8 *slot, u32 size, u32 ecc,
			 struct ramtrail_ecc_encoder *enc);
int ramtrail_ecc_correct(u8 *slot, u32 size, u32 ecc);

#endif /* _RAMTRAIL_ECC_H */
