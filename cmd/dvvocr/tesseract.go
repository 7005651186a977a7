//go:build cgo && libtesseract

package main

/*
#cgo pkg-config: tesseract
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <tesseract/capi.h>

// dvv_open loads lang's model, or answers NULL.
static TessBaseAPI *dvv_open(const char *lang) {
	TessBaseAPI *api = TessBaseAPICreate();
	if (TessBaseAPIInit2(api, NULL, lang, OEM_LSTM_ONLY) != 0) {
		TessBaseAPIDelete(api);
		return NULL;
	}
	// Per-read chatter ("Estimating resolution") would only fill dvvd's
	// copy of stderr; errors from loading a model come before this.
	TessBaseAPISetVariable(api, "debug_file", "/dev/null");
	return api;
}

// dvv_symbols appends to tsv (which it frees) one row per recognised
// character, as TSV rows of level 6: the word's page, block, paragraph,
// line and word numbers, numbered as TessBaseAPIGetTsvText numbers its
// words, then the character's box, confidence and text. It answers a new
// string (free it with free), or NULL when out of memory.
static char *dvv_symbols(TessBaseAPI *api, char *tsv) {
	size_t len = strlen(tsv), cap = len + 4096;
	char *out = malloc(cap);
	if (out == NULL) {
		TessDeleteText(tsv);
		return NULL;
	}
	memcpy(out, tsv, len + 1);
	TessDeleteText(tsv);
	TessResultIterator *ri = TessBaseAPIGetIterator(api);
	if (ri == NULL) {
		return out;
	}
	TessPageIterator *pi = TessResultIteratorGetPageIterator(ri);
	int block = 0, par = 0, line = 0, word = 0;
	do {
		char *text = TessResultIteratorGetUTF8Text(ri, RIL_SYMBOL);
		if (text == NULL) {
			continue;
		}
		if (TessPageIteratorIsAtBeginningOf(pi, RIL_BLOCK)) {
			block++;
			par = line = word = 0;
		}
		if (TessPageIteratorIsAtBeginningOf(pi, RIL_PARA)) {
			par++;
			line = word = 0;
		}
		if (TessPageIteratorIsAtBeginningOf(pi, RIL_TEXTLINE)) {
			line++;
			word = 0;
		}
		if (TessPageIteratorIsAtBeginningOf(pi, RIL_WORD)) {
			word++;
		}
		int l = 0, t = 0, r = 0, b = 0;
		TessPageIteratorBoundingBox(pi, RIL_SYMBOL, &l, &t, &r, &b);
		float conf = TessResultIteratorConfidence(ri, RIL_SYMBOL);
		size_t need = strlen(text) + 128;
		if (len + need >= cap) {
			cap = (cap + need) * 2;
			char *grown = realloc(out, cap);
			if (grown == NULL) {
				TessDeleteText(text);
				TessResultIteratorDelete(ri);
				free(out);
				return NULL;
			}
			out = grown;
		}
		len += snprintf(out + len, cap - len, "6\t1\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t%s\n",
			block, par, line, word, l, t, r - l, b - t, conf, text);
		TessDeleteText(text);
	} while (TessResultIteratorNext(ri, RIL_SYMBOL));
	TessResultIteratorDelete(ri);
	return out;
}

// dvv_read recognises one grey picture and answers its TSV, the words'
// rows followed by the characters' (free it with free), or NULL when
// recognition failed or ran out of time.
static char *dvv_read(TessBaseAPI *api, const unsigned char *pix, int w, int h, int psm, int deadline_ms) {
	TessBaseAPISetPageSegMode(api, (TessPageSegMode)psm);
	TessBaseAPISetImage(api, pix, w, h, 1, w);
	ETEXT_DESC *mon = TessMonitorCreate();
	if (deadline_ms > 0) {
		TessMonitorSetDeadlineMSecs(mon, deadline_ms);
	}
	char *tsv = NULL;
	if (TessBaseAPIRecognize(api, mon) == 0) {
		tsv = TessBaseAPIGetTsvText(api, 0);
		if (tsv != NULL) {
			tsv = dvv_symbols(api, tsv);
		}
	}
	TessMonitorDelete(mon);
	TessBaseAPIClear(api);
	return tsv;
}
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/dvvhq/dvv/pkg/ocr/pipe"
)

// maxModels bounds the language lists kept loaded (dvvd keeps at most four
// readers a limb, one per list).
const maxModels = 4

// addressSpace bounds the worker's memory: a picture that makes Tesseract
// allocate without end fails an allocation here, not the machine.
const addressSpace = 3 << 30

type tess struct {
	models map[string]*C.TessBaseAPI
	order  []string // least recently used first
}

func newEngine() (engine, error) {
	lim := syscall.Rlimit{Cur: addressSpace, Max: addressSpace}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		return nil, fmt.Errorf("bounding memory: %v", err)
	}
	return &tess{models: map[string]*C.TessBaseAPI{}}, nil
}

func (t *tess) version() string { return "tesseract " + C.GoString(C.TessVersion()) }

func (t *tess) model(lang string) (*C.TessBaseAPI, error) {
	for i, l := range t.order {
		if l == lang {
			t.order = append(append(t.order[:i:i], t.order[i+1:]...), lang)
			return t.models[lang], nil
		}
	}
	cl := C.CString(lang)
	defer C.free(unsafe.Pointer(cl))
	api := C.dvv_open(cl)
	if api == nil {
		return nil, fmt.Errorf("%w: loading %q failed", errUnavailable, lang)
	}
	if len(t.order) >= maxModels {
		old := t.order[0]
		C.TessBaseAPIEnd(t.models[old])
		C.TessBaseAPIDelete(t.models[old])
		delete(t.models, old)
		t.order = t.order[1:]
	}
	t.models[lang] = api
	t.order = append(t.order, lang)
	return api, nil
}

func (t *tess) read(q *pipe.Request) ([]byte, error) {
	api, err := t.model(q.Lang)
	if err != nil {
		return nil, err
	}
	out := C.dvv_read(api, (*C.uchar)(unsafe.Pointer(&q.Pix[0])), C.int(q.Width), C.int(q.Height), C.int(q.PSM), C.int(min(q.DeadlineMs, 1<<30)))
	if out == nil {
		return nil, fmt.Errorf("recognition failed or passed its %d ms deadline", q.DeadlineMs)
	}
	defer C.free(unsafe.Pointer(out))
	n := C.strlen(out)
	if n > pipe.MaxAnswer {
		return nil, fmt.Errorf("%d bytes of output, over the %d byte bound", n, pipe.MaxAnswer)
	}
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}
