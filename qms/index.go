package qms

// The compiler finds sites, variables and constants by name (and sites and variables by
// number) through the maps here, so that each lookup takes the same time however large the
// source: a walk of the lists instead made compiling a quest grow with the square of its size.
// Each map gives what the walk of its list in order would find first.

// declaredVar returns the first declared variable called name, or nil.
func (c *compiler) declaredVar(name string) *variable {
	if c.varNames == nil || c.varNamesLen > len(c.vars) {
		c.varNames, c.varNamesLen = map[string]*variable{}, 0
	}
	// The variables declared since the last lookup (the decompiler adds its own to the list).
	for ; c.varNamesLen < len(c.vars); c.varNamesLen++ {
		v := c.vars[c.varNamesLen]
		if _, ok := c.varNames[v.name]; !ok {
			c.varNames[v.name] = v
		}
	}
	return c.varNames[name]
}

// varsReordered forgets the index of the variables by name, after the list changed order.
func (c *compiler) varsReordered() { c.varNames = nil }

// varByName returns the variable called name: a declared one, or the one being declared.
func (c *compiler) varByName(name string) *variable {
	if v := c.declaredVar(name); v != nil {
		return v
	}
	if c.curVar != nil && c.curVar.name == name {
		return c.curVar
	}
	return nil
}

// number gives v its parameter number id.
func (c *compiler) number(v *variable, id int) {
	v.id = id
	if c.varIDs == nil {
		c.varIDs = map[int]*variable{}
	}
	if _, ok := c.varIDs[id]; !ok {
		c.varIDs[id] = v
	}
}

// varByID returns the variable of parameter number id, or nil.
func (c *compiler) varByID(id int) *variable {
	if v := c.varIDs[id]; v != nil && v.id == id {
		return v
	}
	// A variable numbered without number (the decompiler numbers its own).
	for _, v := range c.vars {
		if v.id == id {
			c.number(v, id)
			return v
		}
	}
	return nil
}

// addSite lists a closed site, and indexes it by name when it is the first of that name.
func (c *compiler) addSite(s *site) {
	c.sites = append(c.sites, s)
	if c.sitesByName == nil {
		c.sitesByName = map[string]*site{}
	}
	if _, ok := c.sitesByName[s.name]; !ok {
		c.sitesByName[s.name] = s
	}
}

// siteByName returns the first closed site called name, or nil.
func (c *compiler) siteByName(name string) *site { return c.sitesByName[name] }

// siteByID returns the first site of location id, or nil. The sites' ids are final only once
// the source is read (a site reopened may take another #id): the index is made on first use,
// when the quest is built.
func (c *compiler) siteByID(id int32) *site {
	if c.sitesByID == nil {
		c.sitesByID = map[int32]*site{}
		for _, s := range c.sites {
			if _, ok := c.sitesByID[s.id]; !ok {
				c.sitesByID[s.id] = s
			}
		}
	}
	return c.sitesByID[id]
}
