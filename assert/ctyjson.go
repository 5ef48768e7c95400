package assert

import (
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

func ctyJSON(v cty.Value) ([]byte, error) { return ctyjson.Marshal(v, v.Type()) }
