/* dmx exchange API (placeholder: filled in by the exchange work). Included by dmx.h. */
#ifndef DMX_EXCHANGE_H
#define DMX_EXCHANGE_H
#endif
