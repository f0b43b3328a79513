/* dmx relabel API (placeholder: filled in by the relabel work). Included by dmx.h. */
#ifndef DMX_RELABEL_H
#define DMX_RELABEL_H
#endif
