import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { FileStorage } from './file-storage.ts';
import { MAX_PIXELS } from './thumbnails.ts';

/**
 * Strips the metadata of a raster image just stored (EXIF and XMP: where a photo was taken, the
 * camera, the time), unless its field `keeps location`: the image is turned as its EXIF
 * orientation says, so it still shows the right way up, keeps its colour profile, and is written
 * again in its own format in place of the upload. Answers the new size, or null when there was
 * nothing to strip (or sharp cannot read it: then it carries nothing sharp, or a browser, reads
 * as metadata either) and the bytes are kept as sent.
 */
export async function stripImageMetadata(storage: FileStorage, key: string, kind: string): Promise<number | null> {
  const stored = await storage.read(key);
  if (!stored) return null;
  const bytes = await buffer(stored);
  const { default: sharp } = await import('sharp');
  let animated = false;
  try {
    const metadata = await sharp(bytes, { limitInputPixels: MAX_PIXELS }).metadata();
    if (!metadata.exif && !metadata.xmp) return null;
    animated = (metadata.pages ?? 1) > 1;
  } catch {
    return null;
  }
  let image = sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error', animated }).rotate().keepIccProfile();
  if (kind === 'jpeg') image = image.jpeg({ quality: 92, chromaSubsampling: '4:4:4' });
  else if (kind === 'png') image = image.png();
  else if (kind === 'webp') image = image.webp({ quality: 92 });
  else if (kind === 'avif') image = image.avif({ quality: 80 });
  else return null;
  const clean = await image.toBuffer();
  await storage.write(key, Readable.from([clean]), clean.length);
  return clean.length;
}
