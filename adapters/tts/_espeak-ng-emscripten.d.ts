// Types of the few members of @echogarden/espeak-ng-emscripten (an untyped Emscripten build) we use.
declare module '@echogarden/espeak-ng-emscripten' {
  export interface EspeakVoice {
    name: string;
    identifier: string;
    languages: { priority: number; name: string }[];
  }
  export interface EspeakEvent {
    type: string;
  }
  export interface ESpeakNGWorker {
    list_voices(): EspeakVoice[];
    /** 0 on success, 2 when no voice has that name or identifier. */
    set_voice(nameOrIdentifier: string): number;
    /** Calls back with each buffer of samples; a truthy return stops synthesis. */
    synthesize(text: string, callback: (samples: Int16Array | Float32Array | null, events: EspeakEvent[]) => boolean | void): void;
    get_samplerate(): number;
  }
  export interface EspeakModule {
    eSpeakNGWorker: new () => ESpeakNGWorker;
    FS: import('./_espeak-archive.js').EmscriptenFS;
  }
  export interface EspeakOptions {
    print?: (s: string) => void;
    printErr?: (s: string) => void;
    /** Emscripten's file packager asks this for its archive (by path and size) instead of reading it. */
    getPreloadedPackage?: (path: string, size: number) => ArrayBuffer;
  }
  const createModule: (options?: EspeakOptions) => Promise<EspeakModule>;
  export default createModule;
}
