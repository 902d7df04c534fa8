/* Pieces of the line rules that other families built on them share. */
#ifndef FIVEROW_LINES_RULE_H
#define FIVEROW_LINES_RULE_H

#include "game/rule_family.h"

/* The rules of the line family (variant.rule_flavour). */
enum { LINES_FREESTYLE = 0, LINES_STANDARD = 1, LINES_CARO = 2 };

/* Every empty cell into legal. */
void lines_legal_empty(const variant *v, const board_hdr *b, uint64_t *legal);
/* After a stone on a in normal play: the other seat's turn, and the legal
 * set without a (or, when wide, CHANGE_MASK_WIDE for the caller to rebuild
 * it). Returns CHANGE_* flags. */
unsigned lines_pass_turn(const variant *v, board_hdr *b, int a, int wide);

#endif
