/**
 * Tests check every event the services publish against its schema, as
 * Zulip's tests check each event (`check_events_dict`): `layer` wraps the
 * `Events` publisher so that each event is decoded strictly
 * (`EventPayload.checkPublished`: a missing, wrong or extra field) before it
 * is published; a wrong event is a defect, so the test that caused it fails
 * (at the wire, a 500). Production publishes without the check.
 *
 * `layerServices` puts it between the services and the persistence.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { checkPublished } from "../domain/events/EventPayload.ts"
import * as Persistence from "../Persistence.ts"
import type { FileStorage } from "../ports/FileStorage.ts"
import type { Publication } from "../services/events/Events.ts"
import { Events } from "../services/events/Events.ts"
import type { KeyGenerator } from "../services/KeyGenerator.ts"
import type { PasswordHasher } from "../services/PasswordHasher.ts"
import * as Teamchat from "../Teamchat.ts"

const checkAll = (publications: ReadonlyArray<Publication>): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const publication of publications) checkPublished(publication.event)
  })

/** `Events` over the one provided, checking each event before it is published. */
export const layer: Layer.Layer<Events, never, Events> = Layer.effect(
  Events,
  Effect.gen(function*() {
    const events = yield* Events
    return Events.of({
      publish: (realmId, event, audience, requires) =>
        Effect.andThen(checkAll([{ event, audience }]), events.publish(realmId, event, audience, requires)),
      publishAll: (realmId, publications) =>
        Effect.andThen(checkAll(publications), events.publishAll(realmId, publications)),
      publishMessage: (realmId, message, recipients, publications, options) =>
        Effect.andThen(checkAll(publications), events.publishMessage(realmId, message, recipients, publications, options))
    })
  })
)

/**
 * Every core service over `persistence`, publishing through `layer` (the
 * `Events` the layer provides is the checking one too); uploaded files in
 * memory.
 */
export const layerServices = <E, R>(
  persistence: Layer.Layer<Persistence.Persistence, E, R>,
  secrets: Layer.Layer<KeyGenerator | PasswordHasher> = Teamchat.layerSecretsTest,
  storage: Layer.Layer<FileStorage> = Persistence.layerFileStorageMemory
): Layer.Layer<Teamchat.Services | Persistence.Persistence, E, R> =>
  Teamchat.layerServices.pipe(
    Layer.provideMerge(layer),
    Layer.provideMerge(persistence),
    Layer.provide(Layer.merge(secrets, storage))
  )

/** `Teamchat.layerMemory` with every published event checked (files in `storage`, default memory). */
export const layerMemory = (secrets?: Layer.Layer<KeyGenerator | PasswordHasher>, storage?: Layer.Layer<FileStorage>) =>
  layerServices(Persistence.layerMemory, secrets, storage)

/** `Teamchat.layerSql` with every published event checked (files in `storage`, default memory). */
export const layerSql = (secrets?: Layer.Layer<KeyGenerator | PasswordHasher>, storage?: Layer.Layer<FileStorage>) =>
  layerServices(Persistence.layerSql, secrets, storage)
