/* Evaluation and move scores of the pvs player: see pvs_eval.h. */
#include "players/pvs_eval.h"

/* What a stone makes along one line, by pattern. */
static const int line_worth[PAT_NB] = {
    [PAT_DEAD] = 0, [PAT_LONG] = 0, [PAT_C1] = 1,   [PAT_O1] = 4,     [PAT_C2] = 6,
    [PAT_O2] = 16,  [PAT_O2A] = 18, [PAT_O2B] = 20, [PAT_C3] = 20,    [PAT_O3] = 48,
    [PAT_O3S] = 56, [PAT_C4] = 56,  [PAT_O4] = 200, [PAT_FIVE] = 600,
};

/* The bonus of a combination, by class. */
static const int class_bonus[CLS_NB] = {
    [CLS_O2X2] = 16,  [CLS_C3PLUS] = 20, [CLS_O3PLUS] = 40,
    [CLS_O3X2] = 200, [CLS_C4PLUS] = 50, [CLS_C4O3] = 300,
};

/* Move ordering: a cell's class for the side to move, and for the other side. */
static const int attack_score[CLS_NB] = {
    [CLS_NONE] = 0,    [CLS_FORBID] = -100000, [CLS_O2] = 60,      [CLS_C3] = 50,
    [CLS_O2X2] = 200,  [CLS_C3PLUS] = 150,     [CLS_O3] = 300,     [CLS_O3PLUS] = 500,
    [CLS_O3X2] = 2000, [CLS_C4] = 250,         [CLS_C4PLUS] = 600, [CLS_C4O3] = 4000,
    [CLS_O4] = 20000,  [CLS_FIVE] = 100000,
};
static const int defence_score[CLS_NB] = {
    [CLS_NONE] = 0,     [CLS_FORBID] = 0,  [CLS_O2] = 40,      [CLS_C3] = 30,      [CLS_O2X2] = 120,
    [CLS_C3PLUS] = 90,  [CLS_O3] = 200,    [CLS_O3PLUS] = 350, [CLS_O3X2] = 1500,  [CLS_C4] = 150,
    [CLS_C4PLUS] = 400, [CLS_C4O3] = 3000, [CLS_O4] = 10000,   [CLS_FIVE] = 50000,
};

/* The evaluation's worth of a cell, fitted to game outcomes (pvs self-play
 * from the balanced openings, a logistic model of the side to move's score;
 * benchmarks/tune_eval.py): by line pattern and by class, as the cell of the
 * side to move and as one of the other side. */
static const int mover_pattern[PAT_NB] = {0, 0, 3, -3, 6, 48, 65, 45, -21, -179, -149, 67, 0, 0};
static const int other_pattern[PAT_NB] = {0, 0, 2, -3, 6, 63, 82, 55, 28, 760, 696, 192, 396, 0};
static const int mover_class[CLS_NB] = {0, 0, -45, 64, -54, 59, 200, 307, 304, 64, 160, 716, 0, 0};
static const int other_class[CLS_NB] = {0,    0,     -61, 6,  -103, -11, -688,
                                        -640, -1302, -88, 59, -185, 0,   0};
/* threats with the move in hand, in the order pvs_evaluate tests them */
static const int threat_value[9] = {14, 48, -744, 2652, 979, 174, 18, -127, 191};

void pvs_eval_fill_values(pvs_ctx *x)
{
    const pvs_codes *t = pvs_codes_get();
    for (int code = 0; code < PVS_N_CODES; code++) {
        const int cls = t->cls[code];
        int worth = class_bonus[cls], mover = mover_class[cls], other = other_class[cls];
        for (int i = 0; i < 4; i++) {
            worth += line_worth[t->patterns[code][i]];
            mover += mover_pattern[t->patterns[code][i]];
            other += other_pattern[t->patterns[code][i]];
        }
        x->value[ROLE_ORDER][code] = (int16_t)(worth > 30000 ? 30000 : worth);
        x->value[ROLE_MOVER][code] = (int16_t)mover;
        x->value[ROLE_OTHER][code] = (int16_t)other;
    }
}

static int fitted(const pvs_board *pb)
{
    const int me = pb->side, you = me ^ 1;
    const int16_t *mine = pb->count[me], *yours = pb->count[you];
    int e = pb->value[me][ROLE_MOVER] - pb->value[you][ROLE_OTHER];
    const int my_fours = mine[CLS_C4] + mine[CLS_C4PLUS] + mine[CLS_C4O3];
    const int your_fours = yours[CLS_C4] + yours[CLS_C4PLUS] + yours[CLS_C4O3];
    const int my_threes = mine[CLS_O3] + mine[CLS_O3PLUS] + mine[CLS_O3X2];
    const int answer = yours[CLS_O4] > 0; /* the other side has an open three */
    if (answer)
        e += threat_value[my_fours ? 0 : 1];
    else {
        if (mine[CLS_C4O3])
            e += threat_value[2];
        if (mine[CLS_O3X2])
            e += threat_value[your_fours ? 4 : 3];
    }
    if (yours[CLS_C4O3])
        e += threat_value[5];
    if (yours[CLS_O3X2])
        e += threat_value[my_threes + my_fours ? 7 : 6];
    if (my_threes)
        e += threat_value[8];
    return e;
}

int pvs_evaluate(const pvs_board *pb)
{
    int e = fitted(pb);
    return e > PVS_EVAL_MAX ? PVS_EVAL_MAX : e < -PVS_EVAL_MAX ? -PVS_EVAL_MAX : e;
}

int pvs_move_score(const pvs_board *pb, int c)
{
    const int me = pb->side, you = me ^ 1;
    const pvs_ctx *x = pb->x;
    return attack_score[pb->cls[me][c]] + defence_score[pb->cls[you][c]] +
           x->value[ROLE_ORDER][pb->code[me][c]] + x->value[ROLE_ORDER][pb->code[you][c]] / 2;
}
