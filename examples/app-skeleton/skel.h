/* skel.h — the skeleton's kernel: what the app and the kernel's two sides share. */
#ifndef SKEL_H
#define SKEL_H

#include "tessera_kernel.h"

typedef struct {
  double dt; /* the stage's params block */
} skel_params;

/* in[0] = u (2 components, stencil), in[1] = a (1 component, at the cell); out[0] = u_new (2). */
extern const tess_kernel tess_skel_kernel;

enum { SKEL_DT, SKEL_IH2 /* 1/h^2 per axis: 3 slots */ };

#endif
