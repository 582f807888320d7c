import { MAX_PIXELS } from './thumbnails.ts';

/**
 * A raster image without its metadata (EXIF and XMP: where a photo was taken, the camera, the
 * time), for a field that does not `keep location`: turned as its EXIF orientation says, so it
 * still shows the right way up, with its colour profile kept, written again in its own format.
 * Null when there is nothing to strip (or sharp cannot read it: then it carries nothing sharp, or
 * a browser, reads as metadata either): the bytes are kept as sent.
 *
 * It takes the whole image: sharp decodes from one buffer (its stream input too collects every
 * chunk before it starts), so an upload is stripped as it arrives, before it is stored, and
 * stored once.
 */
export async function withoutImageMetadata(bytes: Buffer, kind: string): Promise<Buffer | null> {
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
  return image.toBuffer();
}
