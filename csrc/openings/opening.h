/* Opening protocols with phases (SPEC section 5): soosorv and swap2. A
 * board's header says the phase; outside PHASE_PLAY the protocol decides
 * which actions are legal and what they do. Seats and colours are tracked
 * apart: header.black_seat says which seat holds black, header.seat which
 * seat acts, header.colour which colour the next stone is. */
#ifndef FIVEROW_OPENING_H
#define FIVEROW_OPENING_H

#include <stddef.h>
#include <stdint.h>

#include "game/opening_row.h"
#include "game/variant.h"

enum phase {
    /* PHASE_PLAY = 0: normal play (game/opening_row.h) */
    /* soosorv */
    SOOSORV_FIRST = 1, /* opener: black stone 1 on the centre */
    SOOSORV_SECOND,    /* opener: white stone 2 in the central 3x3 */
    SOOSORV_THIRD,     /* opener: black stone 3 in the central 5x5 */
    SOOSORV_SWAP1,     /* the other seat: SWAP or NO_SWAP */
    SOOSORV_FOURTH,    /* white's holder: stone 4 anywhere */
    SOOSORV_DECLARE,   /* white's holder: DECLARE_N */
    SOOSORV_SWAP2,     /* black's holder: SWAP or NO_SWAP */
    SOOSORV_OFFER,     /* black's holder: N fifth-move offers, one per step */
    SOOSORV_PICK,      /* white's holder: one offer becomes black stone 5 */
    /* swap2 */
    SWAP2_FIRST,   /* opener: black */
    SWAP2_SECOND,  /* opener: white */
    SWAP2_THIRD,   /* opener: black */
    SWAP2_CHOICE,  /* the other seat: TAKE_BLACK, TAKE_WHITE or PLACE_TWO */
    SWAP2_FOURTH,  /* the other seat: white */
    SWAP2_FIFTH,   /* the other seat: black */
    SWAP2_CHOICE2, /* the opener: TAKE_BLACK or TAKE_WHITE */
    N_PHASES
};

/* Special actions, numbered after the cells. */
enum { SOOSORV_SWAP = 0, SOOSORV_NO_SWAP = 1, SOOSORV_DECLARE_1 = 2, SOOSORV_SPECIALS = 10 };
enum { SWAP2_TAKE_BLACK = 0, SWAP2_TAKE_WHITE = 1, SWAP2_PLACE_TWO = 2, SWAP2_SPECIALS = 3 };

#define PROTOCOL_MAX_PHASES 12

/* What a protocol adds to a variant; filled by protocol_prepare. */
typedef struct protocol_info {
    int n_special;
    const char *special_names[SOOSORV_SPECIALS];
    int n_phases; /* phases shown as one-hot planes, PHASE_PLAY first */
    int phases[PROTOCOL_MAX_PHASES];
    int first_phase;
    int extra_steps; /* decisions that place no stone */
} protocol_info;

/* Per-board protocol state, at variant.off_protocol. */
typedef struct protocol_state {
    uint8_t declared;   /* N of DECLARE_N, 0 before */
    uint8_t offers;     /* offers made so far */
    uint8_t stabilizer; /* bit t: symmetry t maps the four stones onto themselves */
    int8_t opening;     /* canonical opening 0..25 (D1..D13, I1..I13), -1 unknown */
    uint8_t pad[4];
    /* then: uint64_t offered[cell words], excluded[cell words] */
} protocol_state;

static inline protocol_state *protocol_of(const variant *v, board_hdr *b)
{
    return (protocol_state *)((uint8_t *)b + v->off_protocol);
}
static inline const protocol_state *protocol_of_c(const variant *v, const board_hdr *b)
{
    return (const protocol_state *)((const uint8_t *)b + v->off_protocol);
}
static inline uint64_t *protocol_offered(const variant *v, board_hdr *b)
{
    return (uint64_t *)(protocol_of(v, b) + 1);
}
static inline const uint64_t *protocol_offered_c(const variant *v, const board_hdr *b)
{
    return (const uint64_t *)(protocol_of_c(v, b) + 1);
}

/* Check the variant and describe the protocol; -1 with a message. Sets
 * v->opening (NULL for a protocol without phases) and v->first_stone_centre. */
int protocol_prepare(variant *v, protocol_info *info, char *err, size_t errlen);
size_t protocol_state_bytes(const variant *v);

/* What both rows share (opening.c): the state reset, the declared and
 * offered planes, the opening code, the state check, why an action is not
 * legal in the board's phase. */
void protocol_clear(const variant *v, board_hdr *b);
void protocol_write_planes(const variant *v, const board_hdr *b, uint8_t *declared,
                           uint8_t *offered);
int protocol_opening_code(const variant *v, const board_hdr *b);
const char *protocol_check(const variant *v, const board_hdr *b);
const char *protocol_illegal_reason(const variant *v, const board_hdr *b, int action);

/* The rows of the protocols with phases (game/opening_row.h). */
extern const opening_row opening_soosorv;
extern const opening_row opening_swap2;

/* The canonical renju openings: 0..N_OPENINGS-1 (-1: none). */
#define N_OPENINGS 26

/* The stones of canonical opening k: black at (0, 0), white, black, as
 * (x, y) offsets from the centre (x to the right, y up) in xy[0..6). */
void protocol_opening_stones(int opening, int xy[6]);

/* Names of the phases and of the 26 canonical openings ("D4 Kagetsu"). */
const char *protocol_phase_name(int phase);
const char *protocol_opening_name(int opening);
/* The canonical opening of black on the centre, white at offset (wx, wy)
 * and black at (bx, by) (x to the right, y up), or -1. */
int protocol_opening_of(int wx, int wy, int bx, int by);

/* Symmetry t (0..7) of the square about its centre applied to cell c. */
int protocol_symmetric_cell(const geometry *g, int t, int c);

#endif
