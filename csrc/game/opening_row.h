/* An opening protocol with phases (soosorv, swap2: openings/) as one row of
 * operations, picked once when the variant is built (variant.opening; NULL
 * when the protocol has no phases). Outside PHASE_PLAY the protocol decides
 * which actions are legal and what they do; the game layer asks the row. */
#ifndef FIVEROW_OPENING_ROW_H
#define FIVEROW_OPENING_ROW_H

#include <stdint.h>

#include "game/variant.h"

/* Normal play; the protocols' own phases are numbered after it (opening.h). */
enum { PHASE_PLAY = 0 };

typedef struct opening_row {
    const char *name;
    int offer_planes; /* the observation shows the declared number and the offers */
    /* Reset the protocol's per-board state (at variant.off_protocol). */
    void (*clear)(const variant *v, board_hdr *b);
    /* The legal actions of the board's phase (not PHASE_PLAY) into legal. */
    void (*legal)(const variant *v, const board_hdr *b, uint64_t *legal);
    /* Apply a legal action of the board's phase; sets phase, seat and colour. */
    void (*apply)(const variant *v, board_hdr *b, int action);
    /* Why an action is not legal in the board's phase. */
    const char *(*illegal_reason)(const variant *v, const board_hdr *b, int action);
    /* The declared number (4 binary planes) and the offered cells (zeroed). */
    void (*write_planes)(const variant *v, const board_hdr *b, uint8_t *declared, uint8_t *offered);
    /* The canonical renju opening of the board, 0..25, or -1. */
    int (*opening_code)(const variant *v, const board_hdr *b);
    /* Why the protocol's per-board state is out of range, or NULL. */
    const char *(*check)(const variant *v, const board_hdr *b);
} opening_row;

/* The canonical opening of board b (-1 without a protocol that knows one). */
static inline int game_opening_code(const variant *v, const board_hdr *b)
{
    return v->opening ? v->opening->opening_code(v, b) : -1;
}

#endif
