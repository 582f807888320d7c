// The files feature's public face: what the app and the records feature may use.

export { backupFiles, backupFilesFolder, type FilesCopied, restoreFiles } from './backup-files.ts';
export { DiskStorage } from './disk-storage.ts';
export type { FileStorage } from './file-storage.ts';
export { FILES_API } from './files-api.ts';
export { type FilesOptions, files } from './files-plugin.ts';
export { type FileRow, FilesTable } from './files-tables.ts';
export { fileIdsOf, isFileField, RecordFiles, type Upload } from './record-files.ts';
export { defaultFilesFolder, fileStorageFrom, type StorageSettings } from './storage-settings.ts';
