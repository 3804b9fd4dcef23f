// zulip-js ships no types: the few calls the real-client test makes.
declare module "zulip-js" {
  type Params = Record<string, unknown>
  type Answer = Promise<Record<string, any>>
  export interface Client {
    readonly config: { readonly apiKey: string; readonly apiURL: string }
    readonly messages: {
      readonly send: (params: Params) => Answer
      readonly update: (params: Params) => Answer
      readonly deleteById: (params: Params) => Answer
      readonly retrieve: (params: Params) => Answer
    }
    readonly reactions: { readonly add: (params: Params) => Answer; readonly remove: (params: Params) => Answer }
    readonly typing: { readonly send: (params: Params) => Answer }
    readonly queues: { readonly register: (params: Params) => Answer }
    readonly events: { readonly retrieve: (params: Params) => Answer }
    readonly users: { readonly me: { readonly getProfile: () => Answer } }
  }
  const zulip: (config: { readonly username: string; readonly password?: string; readonly apiKey?: string; readonly realm: string }) => Promise<Client>
  export default zulip
}
