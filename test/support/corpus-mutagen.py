"""What python3-mutagen reads from each file: one oracle of the corpus tier (corpus-oracle.ts).

Reads a JSON list of paths on stdin and writes a JSON object on stdout: path -> {"type": the
mutagen class or null, "error": text or null, "fields": {field: [text, ...]}}. Fields are raw
texts, one per value the tag holds; corpus-oracle.ts normalises them for every oracle alike.
Native tags are read per family (mutagen's "easy" mode covers only ID3 and MP4, not the same
keys): a multi-artist ARTISTS tag wins over the display ARTIST, as Picard writes them.
"""
import json
import sys

import mutagen
from mutagen.apev2 import APEv2
from mutagen.asf import ASFTags
from mutagen.id3 import ID3
from mutagen.mp4 import MP4Tags


def texts(values):
    out = []
    for value in values:
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        elif isinstance(value, tuple):
            # MP4 trkn/disk: (number, total); 0 means unset.
            value = str(value[0]) if value[0] else ""
        elif not isinstance(value, str):
            value = str(value)
        if value.strip():
            out.append(value)
    return out


def id3(tags):
    def frame(key):
        found = tags.getall(key)
        return texts([t for f in found for t in getattr(f, "text", [])])

    def txxx(desc):
        found = [f for f in tags.getall("TXXX") if f.desc.upper() == desc]
        return texts([t for f in found for t in f.text])

    return {
        "title": frame("TIT2"),
        "artists": txxx("ARTISTS") or frame("TPE1"),
        "album": frame("TALB"),
        "track": frame("TRCK"),
        "disc": frame("TPOS"),
        # mutagen upgrades ID3v2.3 TYER + TDAT (and v2.2 TYE + TDA) into TDRC.
        "date": frame("TDRC"),
        "isrc": frame("TSRC"),
        "barcode": txxx("BARCODE") or txxx("UPC") or txxx("EAN"),
    }


def keyed(tags, names):
    """Case-insensitive lookup in dict-like tags (Vorbis comments, APEv2, MP4, ASF)."""
    upper = {}
    for key in tags.keys():
        upper.setdefault(key.upper(), key)

    def get(*keys):
        for key in keys:
            real = upper.get(key.upper())
            if real is None:
                continue
            value = tags[real]
            if isinstance(value, str) or not hasattr(value, "__iter__"):
                value = [value]
            # ASF attributes carry a value; an APE text value iterates over its NUL-split texts.
            result = texts([item.value if hasattr(item, "value") else item for item in value])
            if result:
                return result
        return []

    return {field: get(*keys) for field, keys in names.items()}


VORBIS = {
    "title": ["TITLE"],
    "artists": ["ARTISTS", "ARTIST"],
    "album": ["ALBUM"],
    "track": ["TRACKNUMBER"],
    "disc": ["DISCNUMBER"],
    "date": ["DATE"],
    "isrc": ["ISRC"],
    "barcode": ["BARCODE", "UPC", "EAN"],
}

APE = {
    "title": ["Title"],
    "artists": ["Artists", "Artist"],
    "album": ["Album"],
    "track": ["Track"],
    "disc": ["Disc"],
    "date": ["Year"],
    "isrc": ["ISRC"],
    "barcode": ["Barcode", "UPC", "EAN"],
}

FREEFORM = "----:com.apple.iTunes:"
MP4 = {
    "title": ["\xa9nam"],
    "artists": [FREEFORM + "ARTISTS", "\xa9ART"],
    "album": ["\xa9alb"],
    "track": ["trkn"],
    "disc": ["disk"],
    "date": ["\xa9day"],
    "isrc": [FREEFORM + "ISRC"],
    "barcode": [FREEFORM + "BARCODE", FREEFORM + "UPC", FREEFORM + "EAN"],
}

ASF = {
    "title": ["Title"],
    "artists": ["WM/ARTISTS", "Author"],
    "album": ["WM/AlbumTitle"],
    "track": ["WM/TrackNumber"],
    "disc": ["WM/PartOfSet"],
    "date": ["WM/Year"],
    "isrc": ["WM/ISRC"],
    "barcode": ["WM/Barcode", "WM/UPC"],
}


def fields_of(tags):
    if tags is None:
        return {}
    if isinstance(tags, ID3):
        fields = id3(tags)
    elif isinstance(tags, MP4Tags):
        fields = keyed(tags, MP4)
    elif isinstance(tags, ASFTags):
        fields = keyed(tags, ASF)
    elif isinstance(tags, APEv2):
        fields = keyed(tags, APE)
    else:
        fields = keyed(tags, VORBIS)
    return {k: v for k, v in fields.items() if v}


def read(path):
    try:
        audio = mutagen.File(path)
        error = None
    except Exception as e:  # mutagen raises many types on damaged files
        audio, error = None, f"{type(e).__name__}: {e}"
    if audio is not None:
        return {"type": type(audio).__name__, "error": None, "fields": fields_of(audio.tags)}
    # mutagen.File gives up on audio it cannot sync to; its tag readers may still read the tags.
    for reader in (ID3, APEv2):
        try:
            tags = reader(path)
        except Exception:
            continue
        return {"type": f"{reader.__name__} tags only", "error": error, "fields": fields_of(tags)}
    return {"type": None, "error": error, "fields": {}}


def main():
    paths = json.load(sys.stdin)
    json.dump({path: read(path) for path in paths}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
