import TodoData

extension Todo {
    /// The strong entity tag of this version of the to-do (its revision).
    public var entityTag: EntityTag { EntityTag(revision: revision) }
}
