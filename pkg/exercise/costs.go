package exercise

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
)

// Costs remembers what earlier sessions of each component cost, so that
// the next invocation can say what it will cost before it starts. It is
// kept in the user's cache directory (rodin/exercise-costs.json); a
// missing or damaged file is an empty history.
type Costs struct {
	path string
	By   map[string][]float64 `json:"by"` // component ID: the last costs, newest last
}

// keepCosts is how many costs per component are remembered.
const keepCosts = 10

// LoadCosts reads the history ("" for the default place).
func LoadCosts(path string) *Costs {
	if path == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return &Costs{By: map[string][]float64{}}
		}
		path = filepath.Join(dir, "rodin", "exercise-costs.json")
	}
	c := &Costs{path: path}
	if data, err := os.ReadFile(path); err == nil {
		json.Unmarshal(data, c)
	}
	if c.By == nil {
		c.By = map[string][]float64{}
	}
	return c
}

// Record adds a session's cost (the judge's included) and saves the
// history; a history that cannot be saved is only not kept.
func (c *Costs) Record(id string, usd float64) {
	if c.path == "" || usd <= 0 {
		return
	}
	h := append(c.By[id], usd)
	if len(h) > keepCosts {
		h = h[len(h)-keepCosts:]
	}
	c.By[id] = h
	data, _ := json.Marshal(c)
	if os.MkdirAll(filepath.Dir(c.path), 0o755) == nil {
		tmp := c.path + ".tmp"
		if os.WriteFile(tmp, data, 0o644) == nil {
			os.Rename(tmp, c.path)
		}
	}
}

// Estimate is what sessions of id usually cost (the median of the
// remembered ones); ok is false when none is remembered.
func (c *Costs) Estimate(id string) (usd float64, ok bool) {
	h := append([]float64{}, c.By[id]...)
	if len(h) == 0 {
		return 0, false
	}
	sort.Float64s(h)
	return h[len(h)/2], true
}
