/**
 * The kinds of file a file field may accept (`pdf, png, jpeg` in its rules), each as the bytes
 * say it is: the server decides a file's kind from its first bytes (the `file-type` library, whose
 * `ext` names are the `detected` column here), never from its name or the type the browser sent.
 * Kinds `file-type` cannot recognise (plain text, CSV, SVG) cannot be listed; a file field without
 * kinds accepts any file, and one whose bytes say nothing is kept as `application/octet-stream`.
 */
export interface FileFormat {
  /** The media type the file is served with. */
  mime: string;
  /** `file-type`'s `ext` for these bytes. */
  detected: string;
  /** A raster image browsers draw: served inline, with thumbnails; what an image field accepts. */
  raster: boolean;
  /** A raster image whose bytes may carry EXIF metadata (a photo's location), which the server strips. */
  exif?: true;
}

export const FILE_FORMATS: Readonly<Record<string, FileFormat>> = {
  pdf: { mime: 'application/pdf', detected: 'pdf', raster: false },
  png: { mime: 'image/png', detected: 'png', raster: true, exif: true },
  jpeg: { mime: 'image/jpeg', detected: 'jpg', raster: true, exif: true },
  gif: { mime: 'image/gif', detected: 'gif', raster: true },
  webp: { mime: 'image/webp', detected: 'webp', raster: true, exif: true },
  avif: { mime: 'image/avif', detected: 'avif', raster: true, exif: true },
  zip: { mime: 'application/zip', detected: 'zip', raster: false },
  docx: {
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    detected: 'docx',
    raster: false,
  },
  xlsx: { mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', detected: 'xlsx', raster: false },
  pptx: {
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    detected: 'pptx',
    raster: false,
  },
  odt: { mime: 'application/vnd.oasis.opendocument.text', detected: 'odt', raster: false },
  ods: { mime: 'application/vnd.oasis.opendocument.spreadsheet', detected: 'ods', raster: false },
  mp4: { mime: 'video/mp4', detected: 'mp4', raster: false },
  mp3: { mime: 'audio/mpeg', detected: 'mp3', raster: false },
  wav: { mime: 'audio/wav', detected: 'wav', raster: false },
};

/** Other words a spec may write for a kind. */
const KIND_ALIASES: Readonly<Record<string, string>> = { jpg: 'jpeg', jpe: 'jpeg' };

/** The kinds an image field accepts when its rules list none. */
export const DEFAULT_IMAGE_KINDS: readonly string[] = ['png', 'jpeg', 'gif', 'webp', 'avif'];

/** The largest file when a field's rules say none: 25 MB. */
export const FILE_DEFAULT_MAX_BYTES = 25 * 1024 * 1024;
/** The largest a spec may allow: 5 GB, the most one S3 upload of a single part takes. */
export const FILE_MAX_BYTES = 5 * 1024 * 1024 * 1024;
/** The most files a several-files field may hold. */
export const FILE_MAX_COUNT = 100;

/** Size units a spec writes (`10 MB`): binary, as file managers show them. */
export const SIZE_UNITS: Readonly<Record<string, number>> = {
  bytes: 1,
  byte: 1,
  b: 1,
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
};

/** The kind a spec's word names (`jpg` is `jpeg`), or undefined. */
export function fileKind(word: string): string | undefined {
  const lower = word.toLowerCase();
  const name = KIND_ALIASES[lower] ?? lower;
  return Object.hasOwn(FILE_FORMATS, name) ? name : undefined;
}

/** The kind whose bytes `file-type` names `detected`, or undefined. */
export function kindOfDetected(detected: string): string | undefined {
  return Object.keys(FILE_FORMATS).find((k) => FILE_FORMATS[k]?.detected === detected);
}

/** A size in words: `10 MB`, `512 KB`, `300 bytes`. */
export function sizeWords(bytes: number): string {
  for (const [unit, size] of [
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}
